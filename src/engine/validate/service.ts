/**
 * A Service create as kube-apiserver 1.35 handles it, in its order:
 *
 * 1. defaulting, pkg/apis/core/v1 SetDefaults_Service (type ClusterIP,
 *    sessionAffinity None, ClientIP timeout 10800, protocol TCP, targetPort =
 *    port, externalTrafficPolicy Cluster only for externally-accessible
 *    Services, internalTrafficPolicy Cluster, allocateLoadBalancerNodePorts);
 * 2. strategy PrepareForCreate normalizeClusterIPs (clusterIP -> clusterIPs);
 * 3. BeginCreate (pkg/registry/core/service/storage/alloc.go):
 *    initIPFamilyFields, then txnAllocClusterIPs, txnAllocNodePorts and
 *    allocHealthCheckNodePort against the cluster's ServiceCIDRs and node
 *    port range (these run before validation and fail the request alone);
 * 4. ValidateServiceCreate: ValidateObjectMeta (DNS-1035 name) + validateService.
 *
 * Only errors a user can meet are produced: a field defaulting fills in is
 * never "Required". Every error names the upstream function it follows.
 */
import { arr, bool, isObj, num, obj, str, type Json } from "../parse/values.ts";
import { externallyAccessible } from "../model/services.ts";
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
  type FieldError,
  type PathSegment,
} from "./errors.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPortName,
  isValidPortNum,
} from "./formats.ts";
import { ipClass, parseCIDRSloppy, parseIPSloppy } from "../model/ip.ts";
import { stringEntries, validateLabels } from "./meta.ts";

export { externallyAccessible, parseIPSloppy };

export const ANNOTATION_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";

export const ANNOTATION_TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints";

const ANNOTATION_LB_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";

const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

export type IPFamily = "IPv4" | "IPv6";

export interface SvcPort {
  name: string;
  protocol: string;
  appProtocol: string | undefined;
  port: number;
  targetPort: number | string;
  /** 0: none requested. */
  nodePort: number;
  /** Set by allocation when the allocator picks a port (its value is unknown). */
  dynamicNodePort?: boolean;
}

/** The Service after defaulting, as validation sees it. */
export interface Svc {
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  type: string;
  ports: SvcPort[];
  selector: Record<string, string> | undefined;
  clusterIP: string;
  clusterIPs: string[];
  externalIPs: string[];
  sessionAffinity: string;
  /** sessionAffinityConfig.clientIP.timeoutSeconds after defaulting; undefined when the config is nil. */
  timeoutSeconds: number | undefined;
  loadBalancerSourceRanges: string[];
  externalName: string;
  externalTrafficPolicy: string;
  healthCheckNodePort: number;
  dynamicHealthCheckNodePort?: boolean;
  ipFamilies: string[];
  ipFamilyPolicy: string | undefined;
  allocateLoadBalancerNodePorts: boolean | undefined;
  loadBalancerClass: string | undefined;
  internalTrafficPolicy: string | undefined;
  trafficDistribution: string | undefined;
}

/** service.NeedsHealthCheck: type LoadBalancer with externalTrafficPolicy Local. */
export function needsHealthCheck(s: Pick<Svc, "type" | "externalTrafficPolicy">): boolean {
  return s.type === "LoadBalancer" && s.externalTrafficPolicy === "Local";
}

export function strings(v: unknown): string[] {
  return arr(v).filter((x): x is string => typeof x === "string");
}

/** Reads a decoded Service and applies SetDefaults_Service and normalizeClusterIPs. */
export function defaultService(raw: Json, namespace: string, name: string): Svc {
  const spec: Json = obj(raw.spec) ?? {};
  const meta: Json = obj(raw.metadata) ?? {};
  const type = str(spec.type) || "ClusterIP";
  const sessionAffinity = str(spec.sessionAffinity) || "None";
  let timeoutSeconds: number | undefined;
  if (sessionAffinity === "ClientIP") {
    timeoutSeconds =
      num(obj(obj(spec.sessionAffinityConfig)?.clientIP)?.timeoutSeconds) ??
      DEFAULT_CLIENT_IP_AFFINITY_SECONDS;
  } else if (sessionAffinity !== "None" && isObj(spec.sessionAffinityConfig)) {
    timeoutSeconds = num(obj(spec.sessionAffinityConfig.clientIP)?.timeoutSeconds);
  }
  const ports: SvcPort[] = arr(spec.ports).map((p) => {
    const sp: Json = obj(p) ?? {};
    const port = num(sp.port) ?? 0;
    const tp = sp.targetPort;
    const targetPort =
      tp === 0 || tp === "" || tp === null || tp === undefined
        ? port
        : typeof tp === "string"
          ? tp
          : (num(tp) ?? port);
    return {
      name: str(sp.name) ?? "",
      protocol: str(sp.protocol) || "TCP",
      appProtocol: str(sp.appProtocol),
      port,
      targetPort,
      nodePort: num(sp.nodePort) ?? 0,
    };
  });
  const clusterIP = str(spec.clusterIP) ?? "";
  let clusterIPs = strings(spec.clusterIPs);
  if (clusterIP && clusterIPs.length === 0) clusterIPs = [clusterIP];
  const svc: Svc = {
    namespace,
    name,
    annotations: Object.fromEntries(stringEntries(meta.annotations)),
    type,
    ports,
    selector: isObj(spec.selector) ? Object.fromEntries(stringEntries(spec.selector)) : undefined,
    clusterIP,
    clusterIPs,
    externalIPs: strings(spec.externalIPs),
    sessionAffinity,
    timeoutSeconds,
    loadBalancerSourceRanges: strings(spec.loadBalancerSourceRanges),
    externalName: str(spec.externalName) ?? "",
    externalTrafficPolicy: str(spec.externalTrafficPolicy) ?? "",
    healthCheckNodePort: num(spec.healthCheckNodePort) ?? 0,
    ipFamilies: strings(spec.ipFamilies),
    ipFamilyPolicy: str(spec.ipFamilyPolicy),
    allocateLoadBalancerNodePorts: bool(spec.allocateLoadBalancerNodePorts),
    loadBalancerClass: str(spec.loadBalancerClass),
    internalTrafficPolicy: str(spec.internalTrafficPolicy),
    trafficDistribution: str(spec.trafficDistribution),
  };
  if (externallyAccessible(svc) && svc.externalTrafficPolicy === "") svc.externalTrafficPolicy = "Cluster";
  if (
    svc.internalTrafficPolicy === undefined &&
    (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP")
  )
    svc.internalTrafficPolicy = "Cluster";
  if (type === "LoadBalancer" && svc.allocateLoadBalancerNodePorts === undefined)
    svc.allocateLoadBalancerNodePorts = true;
  return svc;
}

export function familyOf(ip: string): IPFamily {
  return parseIPSloppy(ip)?.family === 6 ? "IPv6" : "IPv4";
}

const SUPPORTED_IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];

export function isHeadless(s: Svc): boolean {
  return s.clusterIPs.length === 1 && s.clusterIPs[0] === "None";
}

/** IsValidIPForLegacyField (StrictIPCIDRValidation off in 1.35). */
function validateLegacyIP(path: PathSegment[], value: string): FieldError[] {
  return parseIPSloppy(value)
    ? []
    : [
        invalid(
          path,
          value,
          "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
          "validation.IsValidIPForLegacyField",
        ),
      ];
}

/** IsValidCIDRForLegacyField (StrictIPCIDRValidation off in 1.35). */
export function validateLegacyCIDR(path: PathSegment[], value: string): FieldError[] {
  return parseCIDRSloppy(value)
    ? []
    : [
        invalid(
          path,
          value,
          "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
          "validation.IsValidCIDRForLegacyField",
        ),
      ];
}

/** ValidateEndpointIP: no unspecified, loopback or link-local addresses. */
export function validateEndpointIP(value: string, path: PathSegment[]): FieldError[] {
  const up = "ValidateEndpointIP";
  const ip = parseIPSloppy(value);
  if (!ip) return [invalid(path, value, "must be a valid IP address", up)];
  const c = ipClass(ip);
  const errs: FieldError[] = [];
  if (c.unspecified) errs.push(invalid(path, value, `may not be unspecified (${value})`, up));
  if (c.loopback)
    errs.push(invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)", up));
  if (c.linkLocalUnicast)
    errs.push(invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)", up));
  if (c.linkLocalMulticast)
    errs.push(
      invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)", up),
    );
  return errs;
}

/** ValidateServiceClusterIPsRelatedFields (create). */
export function validateClusterIPsRelatedFields(s: Svc): FieldError[] {
  if (s.type === "ExternalName") return [];
  const up = "ValidateServiceClusterIPsRelatedFields";
  const errs: FieldError[] = [];
  const ipsPath: PathSegment[] = ["spec", "clusterIPs"];
  const at = ["spec", s.clusterIPs.length && !s.clusterIP ? "clusterIPs" : "clusterIP"];
  if (s.clusterIP) {
    if (s.clusterIPs[0] !== s.clusterIP)
      errs.push({
        ...invalid(ipsPath, s.clusterIPs, "first value must match `clusterIP`", up),
        at: ["spec", "clusterIPs"],
      });
  } else if (s.clusterIPs.length) {
    errs.push({
      ...invalid(ipsPath, s.clusterIPs, "must be empty when `clusterIP` is not specified", up),
      at: ["spec", "clusterIPs"],
    });
  }
  const seen = new Set<string>();
  s.ipFamilies.forEach((f, i) => {
    if (f !== "IPv4" && f !== "IPv6")
      errs.push(notSupported(["spec", "ipFamilies", i], f, ["IPv4", "IPv6"], up));
    if (seen.has(f)) errs.push(duplicate(["spec", "ipFamilies", i], f, up));
    seen.add(f);
  });
  if (s.ipFamilyPolicy !== undefined && !SUPPORTED_IP_FAMILY_POLICIES.includes(s.ipFamilyPolicy)) {
    errs.push(notSupported(["spec", "ipFamilyPolicy"], s.ipFamilyPolicy, SUPPORTED_IP_FAMILY_POLICIES, up));
  }
  let badIPs = false;
  s.clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (s.clusterIPs.length > 1) {
        badIPs = true;
        errs.push({ ...invalid(ipsPath, s.clusterIPs, "'None' must be the first and only value", up), at });
      }
      return;
    }
    const e = validateLegacyIP([...ipsPath, i], ip).map((x) => ({
      ...x,
      at: s.clusterIPs.length > 1 || !s.clusterIP ? ["spec", "clusterIPs", i] : ["spec", "clusterIP"],
    }));
    if (e.length) badIPs = true;
    errs.push(...e);
  });
  if (s.clusterIPs.length > 2)
    errs.push({ ...invalid(ipsPath, s.clusterIPs, "may only hold up to 2 values", up), at });
  if (badIPs) return errs;
  if (s.clusterIPs.length > 1) {
    const fams = s.clusterIPs.map(familyOf);
    if (!(s.clusterIPs.length === 2 && fams[0] !== fams[1]))
      errs.push({
        ...invalid(ipsPath, s.clusterIPs, "may specify no more than one IP for each IP family", up),
        at,
      });
  }
  if (!isHeadless(s) && s.clusterIPs.length > 0 && s.ipFamilies.length > 0) {
    s.clusterIPs.forEach((ip, i) => {
      if (i > s.ipFamilies.length - 1) return;
      const fam = familyOf(ip);
      if (s.ipFamilies[i] === "IPv4" && fam === "IPv6")
        errs.push({
          ...invalid([...ipsPath, i], ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``, up),
          at,
        });
      if (s.ipFamilies[i] === "IPv6" && fam !== "IPv6")
        errs.push({
          ...invalid([...ipsPath, i], ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``, up),
          at,
        });
    });
  }
  return errs;
}

/** validateServicePort */
function validateServicePort(
  sp: SvcPort,
  requireName: boolean,
  names: Set<string>,
  path: PathSegment[],
): FieldError[] {
  const up = "validateServicePort";
  const errs: FieldError[] = [];
  if (requireName && sp.name === "") errs.push(required([...path, "name"], "", up));
  else if (sp.name !== "") {
    for (const m of isDNS1123Label(sp.name))
      errs.push(invalid([...path, "name"], sp.name, m, "validateServicePort (ValidateDNS1123Label)"));
    if (names.has(sp.name)) errs.push(duplicate([...path, "name"], sp.name, up));
    else names.add(sp.name);
  }
  for (const m of isValidPortNum(sp.port)) errs.push(invalid([...path, "port"], sp.port, m, up));
  if (!["SCTP", "TCP", "UDP"].includes(sp.protocol))
    errs.push(notSupported([...path, "protocol"], sp.protocol, ["SCTP", "TCP", "UDP"], up));
  errs.push(...validatePortNumOrName(sp.targetPort, [...path, "targetPort"]));
  if (sp.appProtocol !== undefined)
    for (const m of isQualifiedName(sp.appProtocol))
      errs.push(
        invalid([...path, "appProtocol"], sp.appProtocol, m, "validateServicePort (ValidateQualifiedName)"),
      );
  return errs;
}

/** ValidatePortNumOrName */
export function validatePortNumOrName(port: number | string, path: PathSegment[]): FieldError[] {
  const up = "ValidatePortNumOrName";
  if (typeof port === "number") return isValidPortNum(port).map((m) => invalid(path, port, m, up));
  return isValidPortName(port).map((m) => invalid(path, port, m, up));
}

/** validateServiceExternalTrafficPolicy */
function validateExternalTrafficPolicy(s: Svc): FieldError[] {
  const up = "validateServiceExternalTrafficPolicy";
  const errs: FieldError[] = [];
  if (!externallyAccessible(s)) {
    if (s.externalTrafficPolicy !== "")
      errs.push(
        invalid(
          ["spec", "externalTrafficPolicy"],
          s.externalTrafficPolicy,
          "may only be set for externally-accessible services",
          up,
        ),
      );
  } else if (s.externalTrafficPolicy === "") {
    errs.push(required(["spec", "externalTrafficPolicy"], "", up));
  } else if (s.externalTrafficPolicy !== "Cluster" && s.externalTrafficPolicy !== "Local") {
    errs.push(
      notSupported(["spec", "externalTrafficPolicy"], s.externalTrafficPolicy, ["Cluster", "Local"], up),
    );
  }
  if (!needsHealthCheck(s)) {
    if (s.healthCheckNodePort !== 0) {
      errs.push(
        invalid(
          ["spec", "healthCheckNodePort"],
          s.healthCheckNodePort,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
          up,
        ),
      );
    }
  } else if (s.healthCheckNodePort === 0 && !s.dynamicHealthCheckNodePort) {
    errs.push(required(["spec", "healthCheckNodePort"], "", up));
  } else if (s.healthCheckNodePort !== 0) {
    for (const m of isValidPortNum(s.healthCheckNodePort))
      errs.push(invalid(["spec", "healthCheckNodePort"], s.healthCheckNodePort, m, up));
  }
  return errs;
}

/** An ExternalName Service: no cluster IPs or families, a DNS-1123 name (validateService). */
function validateExternalNameFields(s: Svc, up: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.clusterIPs.length > 0)
    errs.push({
      ...forbidden(["spec", "clusterIPs"], "may not be set for ExternalName services", up),
      at: ["spec", s.clusterIP ? "clusterIP" : "clusterIPs"],
    });
  if (s.ipFamilies.length > 0)
    errs.push(forbidden(["spec", "ipFamilies"], "may not be set for ExternalName services", up));
  if (s.ipFamilyPolicy !== undefined)
    errs.push(forbidden(["spec", "ipFamilyPolicy"], "may not be set for ExternalName services", up));
  const cname = s.externalName.endsWith(".") ? s.externalName.slice(0, -1) : s.externalName;
  if (cname.length > 0)
    for (const m of isDNS1123Subdomain(cname))
      errs.push(invalid(["spec", "externalName"], cname, m, "validateService (ValidateDNS1123Subdomain)"));
  else errs.push(required(["spec", "externalName"], "", up));
  return errs;
}

/** The fields only a LoadBalancer Service may set: source ranges (or their annotation), node port allocation, class. */
function validateLoadBalancerFields(s: Svc, up: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.loadBalancerSourceRanges.length > 0) {
    // Upstream spells this path with a capital L.
    const p: PathSegment[] = ["spec", "LoadBalancerSourceRanges"];
    const at = ["spec", "loadBalancerSourceRanges"];
    if (s.type !== "LoadBalancer")
      errs.push({ ...forbidden(p, "may only be used when `type` is 'LoadBalancer'", up), at });
    s.loadBalancerSourceRanges.forEach((v, i) =>
      errs.push(...validateLegacyCIDR([...p, i], v.trim()).map((e) => ({ ...e, at: [...at, i] }))),
    );
  } else if (s.annotations[ANNOTATION_LB_SOURCE_RANGES] !== undefined) {
    const p: PathSegment[] = ["metadata", "annotations", { key: ANNOTATION_LB_SOURCE_RANGES }];
    if (s.type !== "LoadBalancer")
      errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'", up));
    const val = s.annotations[ANNOTATION_LB_SOURCE_RANGES]!.trim();
    if (val !== "") for (const c of val.split(",")) errs.push(...validateLegacyCIDR(p, c.trim()));
  }
  if (s.allocateLoadBalancerNodePorts !== undefined && s.type !== "LoadBalancer") {
    errs.push(
      forbidden(
        ["spec", "allocateLoadBalancerNodePorts"],
        "may only be used when `type` is 'LoadBalancer'",
        up,
      ),
    );
  }
  if (s.loadBalancerClass !== undefined) {
    if (s.type === "LoadBalancer") {
      for (const m of isQualifiedName(s.loadBalancerClass))
        errs.push(
          invalid(["spec", "loadBalancerClass"], s.loadBalancerClass, m, "validateLoadBalancerClassField"),
        );
    } else {
      errs.push(
        forbidden(
          ["spec", "loadBalancerClass"],
          "may only be used when `type` is 'LoadBalancer'",
          "validateLoadBalancerClassField",
        ),
      );
    }
  }
  return errs;
}

/** validateService (pkg/apis/core/validation/validation.go), on the allocated Service. */
export function validateServiceSpec(s: Svc): FieldError[] {
  const errs: FieldError[] = [];
  const up = "validateService";
  const hints = s.annotations[ANNOTATION_TOPOLOGY_HINTS];
  const mode = s.annotations[ANNOTATION_TOPOLOGY_MODE];
  if (hints !== undefined && mode !== undefined && hints !== mode) {
    errs.push(
      invalid(
        ["metadata", "annotations", { key: ANNOTATION_TOPOLOGY_MODE }],
        mode,
        `must match annotations[${ANNOTATION_TOPOLOGY_HINTS}] when both are specified`,
        up,
      ),
    );
  }
  const headless = isHeadless(s);
  if (s.ports.length === 0 && !headless && s.type !== "ExternalName")
    errs.push(required(["spec", "ports"], "", up));
  if (s.type === "LoadBalancer" && headless)
    errs.push({
      ...invalid(["spec", "clusterIPs", 0], "None", "may not be set to 'None' for LoadBalancer services", up),
      at: ["spec", "clusterIP"],
    });
  if (s.type === "NodePort" && headless)
    errs.push({
      ...invalid(["spec", "clusterIPs", 0], "None", "may not be set to 'None' for NodePort services", up),
      at: ["spec", "clusterIP"],
    });
  if (s.type === "ExternalName") errs.push(...validateExternalNameFields(s, up));
  const names = new Set<string>();
  s.ports.forEach((sp, i) =>
    errs.push(...validateServicePort(sp, s.ports.length > 1, names, ["spec", "ports", i])),
  );
  if (s.selector !== undefined) errs.push(...validateLabels(s.selector, ["spec", "selector"]));
  if (s.sessionAffinity !== "ClientIP" && s.sessionAffinity !== "None") {
    errs.push(notSupported(["spec", "sessionAffinity"], s.sessionAffinity, ["ClientIP", "None"], up));
  }
  if (s.sessionAffinity === "ClientIP" && s.timeoutSeconds !== undefined) {
    const t = s.timeoutSeconds;
    if (t <= 0 || t > MAX_CLIENT_IP_AFFINITY_SECONDS) {
      errs.push(
        invalid(
          ["spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"],
          t,
          `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`,
          "validateClientIPAffinityConfig (validateAffinityTimeout)",
        ),
      );
    }
  }
  errs.push(...validateClusterIPsRelatedFields(s));
  s.externalIPs.forEach((ip, i) => {
    const p: PathSegment[] = ["spec", "externalIPs", i];
    const e = validateLegacyIP(p, ip);
    errs.push(...(e.length ? e : validateEndpointIP(ip, p)));
  });
  if (!["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"].includes(s.type)) {
    errs.push(
      notSupported(["spec", "type"], s.type, ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"], up),
    );
  }
  if (s.type === "ClusterIP") {
    s.ports.forEach((sp, i) => {
      if (sp.nodePort !== 0)
        errs.push(
          forbidden(["spec", "ports", i, "nodePort"], "may not be used when `type` is 'ClusterIP'", up),
        );
    });
  }
  const nodePorts = new Set<string>();
  s.ports.forEach((sp, i) => {
    if (sp.nodePort === 0) return;
    const key = `${sp.protocol}/${sp.nodePort}`;
    if (nodePorts.has(key)) errs.push(duplicate(["spec", "ports", i, "nodePort"], sp.nodePort, up));
    nodePorts.add(key);
  });
  const ports = new Set<string>();
  s.ports.forEach((sp, i) => {
    const key = `${sp.protocol}/${sp.port}`;
    if (ports.has(key))
      errs.push({ ...duplicate(["spec", "ports", i], { protocol: sp.protocol, port: sp.port }, up) });
    ports.add(key);
  });
  errs.push(...validateLoadBalancerFields(s, up));
  errs.push(...validateExternalTrafficPolicy(s));
  if (
    s.internalTrafficPolicy !== undefined &&
    s.internalTrafficPolicy !== "Cluster" &&
    s.internalTrafficPolicy !== "Local"
  ) {
    errs.push(
      notSupported(
        ["spec", "internalTrafficPolicy"],
        s.internalTrafficPolicy,
        ["Cluster", "Local"],
        "validateServiceInternalTrafficFieldsValue",
      ),
    );
  }
  // PreferSameTrafficDistribution is GA and locked on in 1.35.
  const distributions = ["PreferClose", "PreferSameZone", "PreferSameNode"];
  if (s.trafficDistribution !== undefined && !distributions.includes(s.trafficDistribution)) {
    errs.push(
      notSupported(
        ["spec", "trafficDistribution"],
        s.trafficDistribution,
        distributions,
        "validateServiceTrafficDistribution",
      ),
    );
  }
  return errs;
}
