/**
 * A Service update as kube-apiserver handles it: the allocated values carried over from the
 * old object (patchAllocatedValues), clusterIPs normalised against the old ones, the IP
 * family upgrade and downgrade rules, then the same validation as a create
 * (ValidateServiceUpdate).
 */
import { obj, str, type Json } from "../parse/values.ts";
import { internal, invalid, type FieldError, type PathSegment } from "./errors.ts";
import { nameIsDNS1035Label } from "./formats.ts";
import { validateObjectMeta } from "./meta.ts";
import {
  defaultService,
  isHeadless,
  needsHealthCheck,
  strings,
  validateServiceSpec,
  type Svc,
} from "./service.ts";
import {
  allocate,
  allocatePort,
  dedupe,
  initIPFamilyFields,
  placeholderIP,
  type Allocations,
  type Held,
  type ServiceValidation,
} from "./serviceCreate.ts";

/**
 * patchAllocatedValues (pkg/registry/core/service/storage/storage.go): values
 * the client left empty keep what the stored Service holds, so removing
 * `clusterIP: None` keeps the Service headless and leaving out an allocated
 * clusterIP or nodePort keeps it.
 */
function patchAllocatedValues(s: Svc, old: Svc): void {
  if (old.type !== "ExternalName" && s.type !== "ExternalName") {
    if (s.clusterIP === "") s.clusterIP = old.clusterIP;
    if (s.clusterIPs.length === 0 && old.clusterIPs.length > 0) s.clusterIPs = [...old.clusterIPs];
  }
  const needsNodePort = (x: Svc) => x.type === "NodePort" || x.type === "LoadBalancer";
  if (needsNodePort(old) && needsNodePort(s)) {
    const inNew = new Set(s.ports.map((p) => p.nodePort).filter((n) => n !== 0));
    const used = new Set(old.ports.map((p) => p.nodePort).filter((n) => inNew.has(n)));
    const byName = new Map(old.ports.map((p) => [p.name, p]));
    for (const p of s.ports) {
      if (p.nodePort !== 0) continue;
      const o = byName.get(p.name);
      if (o && !used.has(o.nodePort)) {
        p.nodePort = o.nodePort;
        if (o.dynamicNodePort) p.dynamicNodePort = true;
      }
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(s) && s.healthCheckNodePort === 0) {
    s.healthCheckNodePort = old.healthCheckNodePort;
    if (old.dynamicHealthCheckNodePort) s.dynamicHealthCheckNodePort = true;
  }
}

/** normalizeClusterIPs on update (storage.go): a changed singular field drives the plural one, and the reverse. */
function normalizeClusterIPsUpdate(s: Svc, old: Svc): void {
  const same =
    s.clusterIPs.length === old.clusterIPs.length && s.clusterIPs.every((ip, i) => ip === old.clusterIPs[i]);
  if (s.clusterIP === old.clusterIP && same) return;
  if (s.clusterIP !== old.clusterIP && same) {
    if (s.clusterIP === "") s.clusterIPs = [];
    else s.clusterIPs = [s.clusterIP, ...s.clusterIPs.slice(1)];
    return;
  }
  if (s.clusterIP === old.clusterIP && !same && s.clusterIPs.length > 0 && s.clusterIP === "")
    s.clusterIP = s.clusterIPs[0]!;
}

/** validateUpgradeDowngradeClusterIPs and validateUpgradeDowngradeIPFamilies (validation.go). */
function validateUpgradeDowngrade(s: Svc, old: Svc, dynamic: (ip: string) => boolean): FieldError[] {
  const errs: FieldError[] = [];
  // An address the allocator picked for the stored Service is unknown here: a value written for it cannot be judged.
  const changed = (a: string, b: string | undefined) => a !== b && !dynamic(a);
  if (s.type === "ExternalName" || old.type === "ExternalName") return errs;
  const up = "ValidateServiceUpdate (validateUpgradeDowngradeClusterIPs)";
  const newHeadless = isHeadless(s);
  const oldHeadless = isHeadless(old);
  const ipsPath = (i: number): PathSegment[] => ["spec", "clusterIPs", i];
  const at = (i: number) => ({
    at: ["spec", s.clusterIP && i === 0 ? "clusterIP" : "clusterIPs"] as (string | number)[],
  });
  if (!(oldHeadless && newHeadless)) {
    if (old.clusterIPs.length === s.clusterIPs.length) {
      old.clusterIPs.forEach((ip, i) => {
        if (changed(ip, s.clusterIPs[i]))
          errs.push({ ...invalid(ipsPath(i), s.clusterIPs, "may not change once set", up), ...at(i) });
      });
    } else if (old.clusterIPs.length > s.clusterIPs.length) {
      if (s.clusterIPs.length === 0)
        errs.push({
          ...invalid(ipsPath(0), s.clusterIPs, "primary clusterIP can not be unset", up),
          ...at(0),
        });
      if (s.clusterIPs.length > 0 && changed(old.clusterIPs[0]!, s.clusterIPs[0]))
        errs.push({ ...invalid(ipsPath(0), s.clusterIPs, "may not change once set", up), ...at(0) });
      if (s.clusterIPs.length === 1 && s.ipFamilyPolicy !== "SingleStack")
        errs.push(
          invalid(
            ["spec", "ipFamilyPolicy"],
            s.ipFamilyPolicy ?? null,
            "must be set to 'SingleStack' when releasing the secondary clusterIP",
            up,
          ),
        );
    } else if (old.clusterIPs.length > 0 && changed(old.clusterIPs[0]!, s.clusterIPs[0])) {
      errs.push({ ...invalid(ipsPath(0), s.clusterIPs, "may not change once set", up), ...at(0) });
    }
  }
  const upF = "ValidateServiceUpdate (validateUpgradeDowngradeIPFamilies)";
  if (newHeadless === oldHeadless && !newHeadless) {
    const famPath: PathSegment[] = ["spec", "ipFamilies", 0];
    if (old.ipFamilies.length === s.ipFamilies.length) {
      if (old.ipFamilies.some((f, i) => f !== s.ipFamilies[i]))
        errs.push(invalid(famPath, s.ipFamilies, "may not change once set", upF));
    } else if (old.ipFamilies.length > s.ipFamilies.length) {
      if (s.clusterIPs.length === 0)
        errs.push(invalid(famPath, s.ipFamilies, "primary ipFamily can not be unset", upF));
      if (s.ipFamilies.length > 0 && s.ipFamilies[0] !== old.ipFamilies[0])
        errs.push(invalid(famPath, s.clusterIPs, "may not change once set", upF));
      if (s.ipFamilies.length === 1 && s.ipFamilyPolicy !== "SingleStack")
        errs.push(
          invalid(
            ["spec", "ipFamilyPolicy"],
            s.ipFamilyPolicy ?? null,
            "must be set to 'SingleStack' when releasing the secondary ipFamily",
            upF,
          ),
        );
    } else if (
      old.ipFamilies.length > 0 &&
      s.ipFamilies.length > 0 &&
      s.ipFamilies[0] !== old.ipFamilies[0]
    ) {
      errs.push(invalid(famPath, s.clusterIPs, "may not change once set", upF));
    }
  }
  if (
    old.type === "LoadBalancer" &&
    s.type === "LoadBalancer" &&
    old.loadBalancerClass !== s.loadBalancerClass
  ) {
    errs.push(
      invalid(
        ["spec", "loadBalancerClass"],
        s.loadBalancerClass ?? null,
        "may not change once set",
        "ValidateServiceUpdate (validateLoadBalancerClassField)",
      ),
    );
  }
  return errs;
}

/**
 * A Service update as kube-apiserver 1.35 handles it: the stored Service is
 * `old` (as its create stored it, allocations held in `al`); the request's
 * empty allocated fields are patched from it (patchAllocatedValues), the
 * clusterIP fields normalised, IP families inferred, new node ports and
 * addresses allocated (allocateUpdate), then ValidateServiceUpdate:
 * clusterIPs, ipFamilies and loadBalancerClass may not change once set, and
 * validateService on the result.
 */
export function validateServiceUpdate(
  raw: Json,
  old: Svc,
  namespace: string,
  name: string,
  al: Allocations,
): ServiceValidation {
  const s = defaultService(raw, namespace, name);
  const spec: Json = obj(raw.spec) ?? {};
  s.clusterIP = str(spec.clusterIP) ?? "";
  s.clusterIPs = strings(spec.clusterIPs);
  patchAllocatedValues(s, old);
  normalizeClusterIPsUpdate(s, old);
  const held: Held = { ips: [], nodePorts: [] };
  const errors: FieldError[] = [];
  const prepared = initIPFamilyFields(s, al);
  errors.push(...prepared);
  if (prepared.length === 0) {
    if (old.type === "ExternalName" && s.type !== "ExternalName") errors.push(...allocate(s, al, held));
    else {
      // txnUpdateNodePorts / updateNodePorts: ports the stored Service does not hold are allocated now.
      const oldPorts = new Set(old.ports.map((p) => p.nodePort).filter((n) => n !== 0));
      if (s.type === "NodePort" || s.type === "LoadBalancer") {
        const shouldAllocate = s.type === "NodePort" || s.allocateLoadBalancerNodePorts === true;
        for (const [i, sp] of s.ports.entries()) {
          if (sp.nodePort === 0) {
            if (shouldAllocate) sp.dynamicNodePort = true;
            continue;
          }
          if (oldPorts.has(sp.nodePort) || held.nodePorts.includes(sp.nodePort)) continue;
          const err = allocatePort(al, held, sp.nodePort);
          if (err)
            errors.push(
              invalid(
                ["spec", "ports", i, "nodePort"],
                sp.nodePort,
                err,
                "Allocators.updateNodePorts (alloc.go)",
              ),
            );
        }
      }
      // updateHealthCheckNodePort: allocated on the way to Local, immutable while it stays Local.
      if (needsHealthCheck(s)) {
        if (!needsHealthCheck(old)) {
          if (s.healthCheckNodePort === 0) s.dynamicHealthCheckNodePort = true;
          else {
            const err = allocatePort(al, held, s.healthCheckNodePort);
            if (err)
              errors.push(
                internal(
                  ["spec", "healthCheckNodePort"],
                  `failed to allocate requested HealthCheck NodePort ${s.healthCheckNodePort}: ${err}`,
                  "Allocators.updateHealthCheckNodePort (alloc.go)",
                ),
              );
          }
        } else if (s.healthCheckNodePort !== old.healthCheckNodePort) {
          errors.push(
            invalid(
              ["spec", "healthCheckNodePort"],
              s.healthCheckNodePort,
              "cannot change healthCheckNodePort on loadBalancer service with externalTraffic=Local during update",
              "Allocators.updateHealthCheckNodePort (alloc.go)",
            ),
          );
        }
      }
    }
  }
  const placeholders = new Set(al.ranges.map(placeholderIP));
  errors.push(...validateUpgradeDowngrade(s, old, (ip) => placeholders.has(ip)));
  errors.push(
    ...validateObjectMeta(raw, true, nameIsDNS1035Label, "ValidateServiceName (NameIsDNS1035Label)"),
  );
  errors.push(...validateServiceSpec(s));
  const out = dedupe(errors);
  if (out.length === 0) {
    for (const ip of held.ips) al.ips.set(ip, `${namespace}/${name}`);
    for (const p of held.nodePorts) al.nodePorts.set(p, `${namespace}/${name}`);
  }
  return { errors: out, service: s };
}
