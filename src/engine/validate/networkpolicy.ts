/**
 * NetworkPolicy create validation, pkg/apis/networking/validation
 * ValidateNetworkPolicy (1.35), after networking/v1 defaulting
 * (SetDefaults_NetworkPolicyPort: protocol TCP when absent).
 */
import { arr, isObj, num, obj, str, type Json } from "../parse/values.ts";
import { forbidden, invalid, notSupported, required, type FieldError, type PathSegment } from "./errors.ts";
import { isValidPortName, isValidPortNum, nameIsDNSSubdomain } from "./formats.ts";
import { formatIP, parseCidr, parseCIDRSloppy } from "../model/ip.ts";
import { formatPath } from "./errors.ts";
import { validateLabelSelector, validateObjectMeta } from "./meta.ts";
import { validateLegacyCIDR } from "./service.ts";

/** ValidateNetworkPolicyPort */
function validatePort(p: Json, path: PathSegment[]): FieldError[] {
  const up = "ValidateNetworkPolicyPort";
  const errs: FieldError[] = [];
  const protocol = p.protocol === null || p.protocol === undefined ? "TCP" : str(p.protocol);
  if (protocol !== undefined && protocol !== "TCP" && protocol !== "UDP" && protocol !== "SCTP") {
    errs.push(notSupported([...path, "protocol"], protocol, ["TCP", "UDP", "SCTP"], up));
  }
  const port = p.port;
  const endPort = num(p.endPort);
  if (typeof port === "number") {
    for (const m of isValidPortNum(port)) errs.push(invalid([...path, "port"], port, m, up));
    if (endPort !== undefined) {
      if (endPort < port)
        errs.push(invalid([...path, "endPort"], endPort, "must be greater than or equal to `port`", up));
      for (const m of isValidPortNum(endPort)) errs.push(invalid([...path, "endPort"], endPort, m, up));
    }
  } else if (typeof port === "string") {
    if (endPort !== undefined)
      errs.push(
        invalid([...path, "endPort"], endPort, "may not be specified when `port` is non-numeric", up),
      );
    for (const m of isValidPortName(port)) errs.push(invalid([...path, "port"], port, m, up));
  } else if (endPort !== undefined) {
    errs.push(
      invalid([...path, "endPort"], endPort, "may not be specified when `port` is not specified", up),
    );
  }
  return errs;
}

/** ValidateIPBlock (StrictIPCIDRValidation off in 1.35: host bits and leading zeros are accepted). */
function validateIPBlock(b: Json, path: PathSegment[]): FieldError[] {
  const up = "ValidateIPBlock";
  const cidr = str(b.cidr) ?? "";
  if (cidr === "") return [required([...path, "cidr"], "", up)];
  const errs = validateLegacyCIDR([...path, "cidr"], cidr);
  const outer = parseCIDRSloppy(cidr);
  if (!outer) return errs;
  arr(b.except).forEach((e, i) => {
    if (typeof e !== "string") return;
    const p: PathSegment[] = [...path, "except", i];
    errs.push(...validateLegacyCIDR(p, e));
    const inner = parseCIDRSloppy(e);
    if (!inner) return;
    // !cidr.Contains(except.IP) || cidrMaskLen >= exceptMaskLen
    const contained =
      inner.family === outer.family && inner.first >= outer.first && inner.first <= outer.last;
    if (!contained || outer.prefix >= inner.prefix)
      errs.push(invalid(p, e, "must be a strict subset of `cidr`", up));
  });
  return errs;
}

/** ValidateNetworkPolicyPeer: exactly one kind of peer, and ipBlock alone. A null selector is absent. */
function validatePeer(peer: Json, path: PathSegment[]): FieldError[] {
  const up = "ValidateNetworkPolicyPeer";
  const errs: FieldError[] = [];
  let n = 0;
  if (isObj(peer.podSelector)) {
    n++;
    errs.push(...validateLabelSelector(peer.podSelector, [...path, "podSelector"]));
  }
  if (isObj(peer.namespaceSelector)) {
    n++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, [...path, "namespaceSelector"]));
  }
  if (isObj(peer.ipBlock)) {
    n++;
    errs.push(...validateIPBlock(peer.ipBlock, [...path, "ipBlock"]));
  }
  if (n === 0) errs.push(required(path, "must specify a peer", up));
  else if (n > 1 && isObj(peer.ipBlock))
    errs.push(forbidden(path, "may not specify both ipBlock and another peer", up));
  return errs;
}

/** ValidateNetworkPolicySpec */
function validateSpec(spec: Json): FieldError[] {
  const errs = validateLabelSelector(spec.podSelector, ["spec", "podSelector"]);
  for (const [dir, peersKey] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const) {
    arr(spec[dir]).forEach((r, i) => {
      const rule: Json = obj(r) ?? {};
      arr(rule.ports).forEach((p, j) =>
        errs.push(...validatePort(obj(p) ?? {}, ["spec", dir, i, "ports", j])),
      );
      arr(rule[peersKey]).forEach((p, j) =>
        errs.push(...validatePeer(obj(p) ?? {}, ["spec", dir, i, peersKey, j])),
      );
    });
  }
  const types = arr(spec.policyTypes);
  if (types.length > 2) {
    errs.push(
      invalid(
        ["spec", "policyTypes"],
        types,
        "may not specify more than two policyTypes",
        "ValidateNetworkPolicySpec",
      ),
    );
    return errs;
  }
  types.forEach((t, i) => {
    if (t !== "Ingress" && t !== "Egress")
      errs.push(
        notSupported(["spec", "policyTypes", i], t, ["Ingress", "Egress"], "ValidateNetworkPolicySpec"),
      );
  });
  return errs;
}

/** ValidateNetworkPolicy: metadata (DNS subdomain name) and spec. */
export function validateNetworkPolicy(raw: Json): FieldError[] {
  return [
    ...validateObjectMeta(raw, true, nameIsDNSSubdomain, "ValidateNetworkPolicyName (NameIsDNSSubdomain)"),
    ...validateSpec(obj(raw.spec) ?? {}),
  ];
}

/**
 * The apiserver's warnings on create (the NetworkPolicy strategy's
 * WarningsOnCreate -> apimachinery validation.GetWarningsForCIDR, 1.33 on):
 * an ipBlock CIDR that ParseCIDRSloppy accepts and netip.ParsePrefix does
 * not (IPv4 octets with leading zeros) is stored, read as decimal, and
 * flagged "non-standard". Each with its path and the apiserver's words.
 */
export function networkPolicyWarnings(
  raw: Json,
): { path: PathSegment[]; detail: string; canonical: string }[] {
  const out: { path: PathSegment[]; detail: string; canonical: string }[] = [];
  const check = (path: PathSegment[], value: unknown) => {
    if (typeof value !== "string") return;
    const sloppy = parseCIDRSloppy(value);
    if (!sloppy || parseCidr(value).cidr) return;
    const canonical = `${formatIP(sloppy.family, sloppy.first)}/${sloppy.prefix}`;
    out.push({
      path,
      canonical,
      detail: `${formatPath(path)}: non-standard CIDR value ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(canonical)}`,
    });
  };
  const spec = obj(raw.spec) ?? {};
  for (const [dir, peersKey] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const)
    arr(spec[dir]).forEach((rule, i) =>
      arr(obj(rule)?.[peersKey]).forEach((p, j) => {
        const b = obj(obj(p)?.ipBlock);
        if (!b) return;
        const at: PathSegment[] = ["spec", dir, i, peersKey, j, "ipBlock"];
        check([...at, "cidr"], b.cidr);
        arr(b.except).forEach((e, k) => check([...at, "except", k], e));
      }),
    );
  return out;
}
