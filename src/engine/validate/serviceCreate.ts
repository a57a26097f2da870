/**
 * A Service create (ValidateServiceCreate with what precedes it): the cluster-wide allocation
 * state, then the allocation step (pkg/registry/core/service/storage/alloc.go BeginCreate:
 * initIPFamilyFields, then the ClusterIPs, node ports and health check node port taken from
 * the cluster's ServiceCIDRs and node port range, with the static bands the allocators keep
 * for addresses and ports a user asks for; it runs before validation and fails a create
 * alone), then defaulting and validation (service.ts).
 */
import { formatIP } from "../model/ip.ts";
import { internal, invalid, type FieldError, type PathSegment } from "./errors.ts";
import { cidrHas, parseCIDRSloppy, parseIPSloppy, type GoCidr } from "../model/ip.ts";
import type { ClusterConfig } from "../model/types.ts";
import type { Json } from "../parse/values.ts";
import { nameIsDNS1035Label } from "./formats.ts";
import { validateObjectMeta } from "./meta.ts";
import {
  defaultService,
  familyOf,
  isHeadless,
  needsHealthCheck,
  validateClusterIPsRelatedFields,
  validateServiceSpec,
  type IPFamily,
  type Svc,
} from "./service.ts";

export interface Range {
  family: IPFamily;
  cidr: GoCidr;
  text: string;
}

export function ipKey(family: 4 | 6, value: bigint): string {
  return `${family}:${value.toString(16)}`;
}

/** prefixContainsIP (pkg/api/servicecidr): in the prefix, not its network address, not the IPv4 broadcast. */
function rangeHolds(r: Range, ip: string): boolean {
  const p = parseIPSloppy(ip);
  if (!p || !cidrHas(r.cidr, p)) return false;
  if (p.value === r.cidr.first) return false;
  return !(p.family === 4 && p.value === r.cidr.last);
}

/**
 * Allocators.initIPFamilyFields (create): defaults ipFamilyPolicy and
 * ipFamilies from the cluster's ranges and rejects families the cluster lacks.
 * Mutates `s` as the apiserver does.
 */
export function initIPFamilyFields(s: Svc, al: Allocations): FieldError[] {
  if (s.type === "ExternalName") return [];
  const up = "Allocators.initIPFamilyFields (alloc.go)";
  if (s.ipFamilyPolicy === undefined) {
    s.ipFamilyPolicy =
      s.clusterIP === "None" && Object.keys(s.selector ?? {}).length === 0
        ? "RequireDualStack"
        : "SingleStack";
  }
  const pre = validateClusterIPsRelatedFields(s);
  if (pre.length) return pre;
  const errs: FieldError[] = [];
  const policyPath: PathSegment[] = ["spec", "ipFamilyPolicy"];
  if (s.ipFamilyPolicy === "SingleStack") {
    if (s.clusterIPs.length === 2)
      errs.push(
        invalid(
          policyPath,
          s.ipFamilyPolicy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
          up,
        ),
      );
    if (s.ipFamilies.length === 2)
      errs.push(
        invalid(
          policyPath,
          s.ipFamilyPolicy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
          up,
        ),
      );
  }
  const configured = al.families();
  for (const [i, ip] of s.clusterIPs.entries()) {
    if (ip === "None") break;
    const fam = familyOf(ip);
    if (i >= s.ipFamilies.length) {
      if (!configured.includes(fam))
        errs.push({
          ...invalid(["spec", "clusterIPs", i], s.clusterIPs, `${fam} is not configured on this cluster`, up),
          at: ["spec", s.clusterIP && i === 0 ? "clusterIP" : "clusterIPs"],
        });
      else s.ipFamilies.push(fam);
    }
  }
  if (errs.length) return errs;
  if (s.clusterIP === "None" && Object.keys(s.selector ?? {}).length === 0) {
    if (s.ipFamilies.length === 0) s.ipFamilies = [al.defaultFamily()];
    if (s.ipFamilies.length < 2 && s.ipFamilyPolicy !== "SingleStack")
      s.ipFamilies.push(s.ipFamilies[0] === "IPv4" ? "IPv6" : "IPv4");
    return [];
  }
  if (s.ipFamilyPolicy === "RequireDualStack" && configured.length < 2)
    errs.push(
      invalid(policyPath, s.ipFamilyPolicy, "this cluster is not configured for dual-stack services", up),
    );
  s.ipFamilies.forEach((f, i) => {
    if (!configured.includes(f as IPFamily))
      errs.push(invalid(["spec", "ipFamilies", i], f, "not configured on this cluster", up));
  });
  if (errs.length) return errs;
  if (s.ipFamilies.length === 0) s.ipFamilies = [al.defaultFamily()];
  if (s.ipFamilyPolicy !== "SingleStack" && s.ipFamilies.length === 1 && configured.length === 2)
    s.ipFamilies.push(s.ipFamilies[0] === "IPv4" ? "IPv6" : "IPv4");
  return [];
}

/** What a successful create would hold: committed to Allocations only when the Service is accepted. */
export interface Held {
  ips: string[];
  nodePorts: number[];
}

/** portallocator.PortAllocator.Allocate, within one allocation operation. */
export function allocatePort(al: Allocations, held: Held, port: number): string | undefined {
  const [lo, hi] = al.nodePortRange;
  if (port < lo || port > hi)
    return `provided port is not in the valid range. The range of valid ports is ${lo}-${hi}`;
  if (al.nodePorts.has(port) || held.nodePorts.includes(port)) return "provided port is already allocated";
  held.nodePorts.push(port);
  return undefined;
}

/** txnAllocClusterIPs, txnAllocNodePorts (initNodePorts) and allocHealthCheckNodePort. */
export function allocate(s: Svc, al: Allocations, held: Held): FieldError[] {
  const errs: FieldError[] = [];
  if (s.type !== "ExternalName" && !isHeadless(s)) {
    for (const [i, family] of s.ipFamilies.entries()) {
      const ip = s.clusterIPs[i];
      if (!ip) {
        // Dynamic allocation from the upper band of the range (KEP-3070): cannot clash with a static request.
        const r = al.ranges.find((x) => x.family === family);
        if (r) {
          s.clusterIPs[i] = placeholderIP(r);
          if (i === 0) s.clusterIP = s.clusterIPs[0]!;
        }
        continue;
      }
      const p = parseIPSloppy(ip)!;
      const range = al.ranges.find((r) => r.family === family && rangeHolds(r, ip));
      let reason: string | undefined;
      if (!range) reason = "the provided network does not match the current range";
      else if (al.ips.has(ipKey(p.family, p.value)) || held.ips.includes(ipKey(p.family, p.value)))
        reason = "provided IP is already allocated";
      if (reason) {
        errs.push({
          ...invalid(
            ["spec", "clusterIPs"],
            s.clusterIPs,
            `failed to allocate IP ${ip}: ${reason}`,
            "Allocators.allocIPs (alloc.go) with the ServiceCIDR allocator (ipallocator.MetaAllocator)",
          ),
          at: ["spec", s.clusterIP && i === 0 ? "clusterIP" : "clusterIPs"],
        });
        break;
      }
      held.ips.push(ipKey(p.family, p.value));
    }
  }
  if (s.type === "NodePort" || s.type === "LoadBalancer") {
    const shouldAllocate = s.type === "NodePort" || s.allocateLoadBalancerNodePorts === true;
    const byServicePort = new Map<number, number | "dynamic">();
    for (const [i, sp] of s.ports.entries()) {
      if (sp.nodePort === 0 && !shouldAllocate) continue;
      const already = byServicePort.get(sp.port);
      const up = "initNodePorts (alloc.go) with portallocator.Allocate";
      if (already === undefined) {
        const np = s.ports.find((q) => q.port === sp.port && q.nodePort !== 0)?.nodePort ?? 0;
        if (np !== 0) {
          const err = allocatePort(al, held, np);
          if (err) {
            errs.push(invalid(["spec", "ports", i, "nodePort"], np, err, up));
            break;
          }
          sp.nodePort = np;
          byServicePort.set(sp.port, np);
        } else {
          sp.dynamicNodePort = true;
          byServicePort.set(sp.port, "dynamic");
        }
      } else if (sp.nodePort !== already) {
        if (sp.nodePort === 0) {
          if (already === "dynamic") sp.dynamicNodePort = true;
          else sp.nodePort = already;
        } else {
          const err = allocatePort(al, held, sp.nodePort);
          if (err) {
            errs.push(invalid(["spec", "ports", i, "nodePort"], sp.nodePort, err, up));
            break;
          }
        }
      }
    }
  }
  if (needsHealthCheck(s)) {
    if (s.healthCheckNodePort !== 0) {
      const err = allocatePort(al, held, s.healthCheckNodePort);
      if (err)
        errs.push(
          internal(
            ["spec", "healthCheckNodePort"],
            `failed to allocate requested HealthCheck NodePort ${s.healthCheckNodePort}: ${err}`,
            "Allocators.allocHealthCheckNodePort (alloc.go)",
          ),
        );
    } else {
      s.dynamicHealthCheckNodePort = true;
    }
  }
  return errs;
}

/** Stands for a dynamically allocated address in the checks that follow allocation. */
export function placeholderIP(r: Range): string {
  return formatIP(r.cidr.family, r.cidr.last - 1n);
}

/** Static and dynamic bands of the allocators (KEP-3070, KEP-3668), for lint. */
export function staticBandIPs(cidr: GoCidr): { first: bigint; offset: number } {
  const size = cidr.last - cidr.first + 1n;
  const min = 16n,
    max = 256n,
    step = 16n;
  let offset: bigint;
  if (size <= min) offset = 0n;
  else {
    offset = size / step;
    if (offset < min) offset = min;
    if (offset > max) offset = max;
  }
  return { first: cidr.first + 1n, offset: Number(offset) };
}

export function staticBandPorts(range: [number, number]): number {
  const size = range[1] - range[0] + 1;
  if (size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / 32)), 128);
}

// ---------- update (kubectl apply / replace of an existing Service) ----------

// ---------- cluster-wide allocation state ----------

/** What earlier Services of the input hold, as the allocators would. */
export class Allocations {
  readonly ranges: Range[];
  readonly ips = new Map<string, string>();
  readonly nodePorts = new Map<number, string>();
  readonly nodePortRange: [number, number];

  constructor(config: ClusterConfig) {
    this.ranges = config.serviceCIDRs.flatMap((text): Range[] => {
      const cidr = parseCIDRSloppy(text);
      return cidr ? [{ family: cidr.family === 4 ? "IPv4" : "IPv6", cidr, text }] : [];
    });
    this.nodePortRange = config.nodePortRange;
    // The apiserver's own Service (default/kubernetes) holds the first address of the primary range.
    const primary = this.ranges[0];
    if (primary)
      this.ips.set(ipKey(primary.cidr.family === 4 ? 4 : 6, primary.cidr.first + 1n), "default/kubernetes");
  }

  families(): IPFamily[] {
    return [...new Set(this.ranges.map((r) => r.family))];
  }

  /** The cluster's default family: that of --service-cluster-ip-range[0]. */
  defaultFamily(): IPFamily {
    return this.ranges[0]?.family ?? "IPv4";
  }
}

export interface ServiceValidation {
  errors: FieldError[];
  /** The Service as the apiserver would store it (after defaulting and allocation). */
  service: Svc;
}

export function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${JSON.stringify(e.path)}|${e.type}|${e.detail}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** One Service create against the cluster's allocations; commits what it holds when accepted. */
export function validateServiceCreate(
  raw: Json,
  namespace: string,
  name: string,
  al: Allocations,
): ServiceValidation {
  const s = defaultService(raw, namespace, name);
  const held: Held = { ips: [], nodePorts: [] };
  const isApiServerService = namespace === "default" && name === "kubernetes";
  const prepared = initIPFamilyFields(s, al);
  let allocation: FieldError[] = [];
  if (prepared.length === 0) {
    if (isApiServerService)
      al.ips.delete([...al.ips].find(([, owner]) => owner === "default/kubernetes")?.[0] ?? "");
    allocation = allocate(s, al, held);
  }
  const meta = validateObjectMeta(raw, true, nameIsDNS1035Label, "ValidateServiceName (NameIsDNS1035Label)");
  const errors = dedupe([...prepared, ...allocation, ...meta, ...validateServiceSpec(s)]);
  if (errors.length === 0) {
    for (const ip of held.ips) al.ips.set(ip, `${namespace}/${name}`);
    for (const p of held.nodePorts) al.nodePorts.set(p, `${namespace}/${name}`);
  }
  return { errors, service: s };
}
