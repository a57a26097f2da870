/**
 * cilium.io/v2 CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy as the
 * engine reads them (pkg/policy/api: rule.go, ingress.go, egress.go,
 * l4.go, cidr.go, entity.go, http.go). `spec` and every item of `specs` are
 * rules of their own. Label keys lose their `k8s:` / `any:` source prefix
 * (pkg/labels: a key without a source matches any source).
 */
import { refOf, type KObject, type SourceRef } from "../../parse/manifests.ts";
import { lineOf } from "../../parse/positions.ts";
import { arr, bool, int, isObj, str, strList, type Json } from "../../parse/values.ts";
import type { Diagnostic } from "../../parse/diagnostics.ts";
import { parseLabelSelector, type LabelSelector } from "../../model/labels.ts";
import { parseCidr, type Cidr } from "../../model/ip.ts";
import { compileUserRegex, isRegexError, type UserRegex } from "../../http/regex.ts";

export const CILIUM_KINDS = new Set(["CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]);

export function isCiliumObject(o: { apiVersion: string; kind: string }): boolean {
  return o.apiVersion.startsWith("cilium.io/") && CILIUM_KINDS.has(o.kind);
}

export interface CiliumCidr {
  text: string;
  cidr: Cidr;
  except: Cidr[];
}

export interface CiliumPort {
  /** 0: every port. */
  port: number;
  /** A named container port of the destination. */
  name?: string;
  endPort?: number;
  /** "ANY" matches TCP, UDP and SCTP. */
  protocol: "TCP" | "UDP" | "SCTP" | "ANY";
}

export interface CiliumHttpRule {
  line: number;
  /** Whole-value RE2 matches (http/regex.ts). */
  method?: UserRegex;
  path?: UserRegex;
  host?: UserRegex;
  /** Lower-cased name; value undefined: the header must be present. */
  headers: { name: string; value?: string }[];
  text: string;
}

/**
 * A toFQDNs or DNS-rule selector (pkg/policy/api/fqdn.go FQDNSelector):
 * matchName is one name, matchPattern a name with `*` wildcards
 * (pkg/fqdn/matchpattern: `*` is any run of DNS characters [-a-zA-Z0-9_]
 * within a label; a bare `*` matches every name). Both compared lower-cased,
 * without the trailing dot.
 */
export interface CiliumFqdnSelector {
  text: string;
  test: (name: string) => boolean;
}

export function fqdnSelector(
  matchName: string | undefined,
  matchPattern: string | undefined,
): CiliumFqdnSelector | undefined {
  const dotless = (n: string) => n.toLowerCase().replace(/\.$/, "");
  if (matchName !== undefined && matchName !== "") {
    const want = dotless(matchName);
    return { text: `matchName ${matchName}`, test: (n) => dotless(n) === want };
  }
  if (matchPattern === undefined || matchPattern === "") return undefined;
  const pattern = dotless(matchPattern);
  if (pattern === "*") return { text: "matchPattern *", test: () => true };
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&"))
      .join("[-a-z0-9_]*")}$`,
  );
  return { text: `matchPattern ${matchPattern}`, test: (n) => re.test(dotless(n)) };
}

function fqdnSelectors(list: unknown): CiliumFqdnSelector[] {
  return arr(list)
    .filter(isObj)
    .map((x) => fqdnSelector(str(x.matchName), str(x.matchPattern)))
    .filter((x): x is CiliumFqdnSelector => !!x);
}

export interface CiliumPortRule {
  index: number;
  line: number;
  ports: CiliumPort[];
  /** Present when the entry has L7 HTTP rules (an empty list allows every request). */
  http?: CiliumHttpRule[];
  /** L7 rules of another protocol (dns, kafka, l7proto) that ktl does not evaluate. */
  otherL7?: string;
  /** `rules.dns`: the names whose lookups the DNS proxy sees (and allows) on this port. */
  dns?: CiliumFqdnSelector[];
}

export interface CiliumPeerRule {
  index: number;
  line: number;
  /** null: no fromEndpoints/toEndpoints. Selectors already normalised (prefixes dropped). */
  endpoints: LabelSelector[] | null;
  entities: string[];
  cidrs: CiliumCidr[];
  /** toFQDNs (egress only): names whose DNS answers, seen by the DNS proxy, the rule admits. */
  fqdns: CiliumFqdnSelector[];
  /** True when the rule names any L3 peer field at all. */
  hasL3: boolean;
  /** null: no toPorts (every port). */
  toPorts: CiliumPortRule[] | null;
  unmodelled: string[];
}

export interface CiliumRule {
  kind: "CiliumNetworkPolicy" | "CiliumClusterwideNetworkPolicy";
  /** Undefined for the clusterwide kind. */
  namespace: string | undefined;
  name: string;
  key: string;
  /** Index in `specs`, or -1 for `spec`. */
  specIndex: number;
  field: string;
  /** Undefined when the rule has a nodeSelector instead (a host policy). */
  endpointSelector: LabelSelector | undefined;
  nodeSelector: boolean;
  ingress: CiliumPeerRule[] | null;
  ingressDeny: CiliumPeerRule[] | null;
  egress: CiliumPeerRule[] | null;
  egressDeny: CiliumPeerRule[] | null;
  enableDefaultDeny: { ingress: boolean | undefined; egress: boolean | undefined };
  source: SourceRef;
  line: number;
}

const PREFIXES = ["k8s:", "any:"];

export function normalizeKey(k: string): string {
  for (const p of PREFIXES) if (k.startsWith(p)) return k.slice(p.length);
  return k;
}

function normalizedSelector(v: unknown): LabelSelector {
  if (!isObj(v)) return parseLabelSelector({});
  const ml: Json = {};
  if (isObj(v.matchLabels)) for (const [k, val] of Object.entries(v.matchLabels)) ml[normalizeKey(k)] = val;
  const me = arr(v.matchExpressions).map((e) =>
    isObj(e) ? { ...e, key: normalizeKey(str(e.key) ?? "") } : e,
  );
  return parseLabelSelector({ matchLabels: ml, matchExpressions: me });
}

interface Ctx {
  o: KObject;
  diagnostics: Diagnostic[];
  /** Why Cilium rejects the whole policy (PortRuleHTTP.Sanitize failed), when it does. */
  rejected?: string;
}

function warn(
  ctx: Ctx,
  line: number,
  field: string,
  message: string,
  severity: "warning" | "info" = "warning",
): void {
  ctx.diagnostics.push({
    code: "KTL451",
    severity,
    file: ctx.o.file,
    doc: ctx.o.doc,
    line: line || ctx.o.line,
    column: 0,
    kind: ctx.o.kind,
    name: ctx.o.name,
    ...(ctx.o.namespace ? { namespace: ctx.o.namespace } : {}),
    field,
    message,
  });
}

/** KTL452: a value Cilium refuses or reads otherwise than written. */
function malformed(
  ctx: Ctx,
  line: number,
  field: string,
  message: string,
  severity: "error" | "warning" = "warning",
): void {
  ctx.diagnostics.push({
    code: "KTL452",
    severity,
    file: ctx.o.file,
    doc: ctx.o.doc,
    line: line || ctx.o.line,
    column: 0,
    kind: ctx.o.kind,
    name: ctx.o.name,
    ...(ctx.o.namespace ? { namespace: ctx.o.namespace } : {}),
    field,
    message,
  });
}

/**
 * A Cilium L7 regex (PortRuleHTTP path, method, host) is matched against the
 * whole value by Envoy's RE2 (http/regex.ts). The agent compiles each with
 * Go's regexp in PortRuleHTTP.Sanitize, and CiliumNetworkPolicy.Parse
 * rejects the whole policy when one does not compile ("Invalid
 * CiliumNetworkPolicy spec: error parsing regexp: ..."): ctx.rejected says
 * so. A pattern RE2 accepts but whose program is larger than ktl evaluates
 * matches nothing here, with a KTL454 warning.
 */
const NEVER: UserRegex = { source: "", test: () => false };

function wholeRegex(ctx: Ctx, text: string | undefined, line: number, field: string): UserRegex | undefined {
  if (text === undefined || text === "") return undefined;
  const r = compileUserRegex(text);
  if (!isRegexError(r)) return r;
  const tooLarge = r.tooLarge === true;
  if (!tooLarge) ctx.rejected ??= `${field}: ${r.error}`;
  ctx.diagnostics.push({
    code: "KTL454",
    severity: tooLarge ? "warning" : "error",
    file: ctx.o.file,
    doc: ctx.o.doc,
    line: line || ctx.o.line,
    column: 0,
    kind: ctx.o.kind,
    name: ctx.o.name,
    ...(ctx.o.namespace ? { namespace: ctx.o.namespace } : {}),
    field,
    message: tooLarge
      ? `${field}: ${JSON.stringify(text)}: ${r.error}; ktl takes it as matching nothing`
      : `${field}: ${JSON.stringify(text)} is not an RE2 regular expression (${r.error}): Cilium rejects the whole policy (Invalid CiliumNetworkPolicy spec), so ktl leaves it out`,
    hint: "Cilium's HTTP rules use RE2 syntax (github.com/google/re2/wiki/Syntax): no lookaround or backreferences.",
  });
  return NEVER;
}

function parseHttp(ctx: Ctx, list: unknown, field: string): CiliumHttpRule[] {
  return arr(list).map((h, i) => {
    const r: Json = isObj(h) ? h : {};
    const line = lineOf(h) || lineOf(list, i);
    const f = `${field}[${i}]`;
    const headers: CiliumHttpRule["headers"] = strList(r.headers).map((s) => {
      const at = s.indexOf(":");
      return at < 0
        ? { name: s.trim().toLowerCase() }
        : { name: s.slice(0, at).trim().toLowerCase(), value: s.slice(at + 1).trim() };
    });
    arr(r.headerMatches).forEach((m, j) => {
      if (!isObj(m)) return;
      if (m.mismatch !== undefined || m.secret !== undefined)
        warn(
          ctx,
          lineOf(m) || line,
          `${f}.headerMatches[${j}]`,
          `${f}.headerMatches[${j}]: mismatch actions and secrets are not evaluated; ktl requires the header as written`,
          "info",
        );
      const name = str(m.name);
      if (name)
        headers.push({
          name: name.toLowerCase(),
          ...(str(m.value) !== undefined ? { value: str(m.value)! } : {}),
        });
    });
    const method = str(r.method),
      path = str(r.path),
      host = str(r.host);
    const text = [
      method ?? "any method",
      path ?? "any path",
      host ? `host ${host}` : "",
      ...headers.map((x) => (x.value === undefined ? `with ${x.name}` : `${x.name}: ${x.value}`)),
    ]
      .filter(Boolean)
      .join(" ");
    const rule: CiliumHttpRule = { line, headers, text };
    const m = wholeRegex(ctx, method, line, `${f}.method`);
    if (m) rule.method = m;
    const p = wholeRegex(ctx, path, line, `${f}.path`);
    if (p) rule.path = p;
    const ho = wholeRegex(ctx, host, line, `${f}.host`);
    if (ho) rule.host = ho;
    return rule;
  });
}

function parseToPorts(ctx: Ctx, list: unknown, field: string): CiliumPortRule[] {
  return arr(list).map((pr, index) => {
    const r: Json = isObj(pr) ? pr : {};
    const f = `${field}[${index}]`;
    const ports: CiliumPort[] = arr(r.ports)
      .filter(isObj)
      .map((p, j) => {
        const proto = (str(p.protocol) ?? "ANY").toUpperCase();
        const protocol = proto === "TCP" || proto === "UDP" || proto === "SCTP" ? proto : "ANY";
        const raw = p.port;
        const n =
          typeof raw === "number"
            ? raw
            : typeof raw === "string" && /^\d+$/.test(raw)
              ? Number(raw)
              : undefined;
        const out: CiliumPort = { port: n ?? 0, protocol };
        if (n === undefined && typeof raw === "string" && raw !== "") out.name = raw;
        const end = int(p.endPort);
        const pf = `${f}.ports[${j}]`;
        const line = lineOf(p) || lineOf(pr);
        // The CRD's port pattern and endPort maximum (0-65535), PortProtocol.Validate's
        // ParseUint(port, 0, 16): out of range, the policy is refused.
        for (const [k, v] of [
          ["port", n],
          ["endPort", end],
        ] as const)
          if (v !== undefined && (v < 0 || v > 65535)) {
            ctx.rejected ??= `${pf}.${k}: ${v} is not a port`;
            malformed(
              ctx,
              line,
              `${pf}.${k}`,
              `${pf}.${k}: ${v} is not a port (0 to 65535): the apiserver refuses the policy (CRD validation), so ktl leaves it out`,
              "error",
            );
          }
        if (end !== undefined && end > 0 && n !== undefined && end < n)
          malformed(
            ctx,
            line,
            `${pf}.endPort`,
            `${pf}.endPort: ${end} is below port ${n}: the range holds no port but ${n}; ktl takes port ${n} alone`,
          );
        else if (end !== undefined && end > 0) out.endPort = end;
        return out;
      });
    const out: CiliumPortRule = { index, line: lineOf(pr) || lineOf(list, index), ports };
    if (isObj(r.rules)) {
      if (Array.isArray(r.rules.http)) out.http = parseHttp(ctx, r.rules.http, `${f}.rules.http`);
      if (Array.isArray(r.rules.dns)) out.dns = fqdnSelectors(r.rules.dns);
      const other = ["dns", "kafka", "l7proto", "l7"].filter(
        (k) => r.rules && (r.rules as Json)[k] !== undefined,
      );
      if (other.length) {
        out.otherL7 = other.join(", ");
        warn(
          ctx,
          lineOf(r, "rules"),
          `${f}.rules`,
          `${f}.rules: ${out.otherL7} rules are not evaluated; ktl allows the connection at L4 and cannot judge requests${out.dns ? " (DNS rules count only for toFQDNs: which lookups the DNS proxy sees)" : ""}`,
          "info",
        );
      }
    }
    if (
      r.serverNames !== undefined ||
      r.terminatingTLS !== undefined ||
      r.originatingTLS !== undefined ||
      r.listener !== undefined
    )
      warn(ctx, out.line, f, `${f}: serverNames, TLS and listener settings are not evaluated`, "info");
    return out;
  });
}

function parseCidrs(ctx: Ctx, r: Json, dir: "from" | "to", field: string): CiliumCidr[] {
  const out: CiliumCidr[] = [];
  const one = (text: string, except: string[], line: number, f: string) => {
    const c = parseCidr(text.includes("/") ? text : `${text}/${text.includes(":") ? 128 : 32}`).cidr;
    if (!c) return warn(ctx, line, f, `${f}: "${text}" is not a CIDR; it matches nothing`);
    out.push({ text, cidr: c, except: except.map((e) => parseCidr(e).cidr).filter((x): x is Cidr => !!x) });
  };
  strList(r[`${dir}CIDR`]).forEach((t, i) =>
    one(t, [], lineOf(r[`${dir}CIDR`], i), `${field}.${dir}CIDR[${i}]`),
  );
  arr(r[`${dir}CIDRSet`]).forEach((s, i) => {
    if (!isObj(s)) return;
    const f = `${field}.${dir}CIDRSet[${i}]`;
    if (str(s.cidr)) one(str(s.cidr)!, strList(s.except), lineOf(s), f);
    else if (s.cidrGroupRef !== undefined || s.cidrGroupSelector !== undefined)
      warn(
        ctx,
        lineOf(s),
        f,
        `${f}: CiliumCIDRGroup references are not evaluated; the entry matches nothing`,
      );
  });
  return out;
}

function parsePeerRules(ctx: Ctx, list: unknown, dir: "from" | "to", field: string): CiliumPeerRule[] | null {
  if (!Array.isArray(list) || list.length === 0) return null;
  return list.map((x, index) => {
    const r: Json = isObj(x) ? x : {};
    const f = `${field}[${index}]`;
    const eps = r[`${dir}Endpoints`];
    const rule: CiliumPeerRule = {
      index,
      line: lineOf(x) || lineOf(list, index),
      endpoints: Array.isArray(eps) ? eps.map(normalizedSelector) : null,
      entities: strList(r[`${dir}Entities`]),
      cidrs: parseCidrs(ctx, r, dir, f),
      fqdns: dir === "to" ? fqdnSelectors(r.toFQDNs) : [],
      hasL3: false,
      toPorts: Array.isArray(r.toPorts) ? parseToPorts(ctx, r.toPorts, `${f}.toPorts`) : null,
      unmodelled: [],
    };
    for (const k of [
      `${dir}Requires`,
      `${dir}Services`,
      ...(dir === "from" ? ["fromFQDNs"] : []),
      `${dir}Groups`,
      `${dir}Nodes`,
      "icmps",
      "toRequires",
    ]) {
      if (r[k] === undefined) continue;
      rule.unmodelled.push(k);
      warn(
        ctx,
        lineOf(r, k),
        `${f}.${k}`,
        `${f}.${k} is not evaluated: ktl treats this peer field as matching nothing`,
        "info",
      );
    }
    rule.hasL3 =
      rule.endpoints !== null ||
      rule.entities.length > 0 ||
      r[`${dir}CIDR`] !== undefined ||
      r[`${dir}CIDRSet`] !== undefined ||
      (dir === "to" && r.toFQDNs !== undefined) ||
      rule.unmodelled.some((k) => k !== "icmps");
    return rule;
  });
}

function parseRule(ctx: Ctx, spec: Json, specIndex: number): CiliumRule {
  const o = ctx.o;
  const kind =
    o.kind === "CiliumClusterwideNetworkPolicy" ? "CiliumClusterwideNetworkPolicy" : "CiliumNetworkPolicy";
  const namespace = kind === "CiliumNetworkPolicy" ? (o.namespace ?? "default") : undefined;
  const field = specIndex < 0 ? "spec" : `specs[${specIndex}]`;
  const edd = isObj(spec.enableDefaultDeny) ? spec.enableDefaultDeny : {};
  const nodeSelector = spec.nodeSelector !== undefined;
  if (nodeSelector)
    warn(
      ctx,
      lineOf(spec, "nodeSelector"),
      `${field}.nodeSelector`,
      `${field}.nodeSelector: a host policy, enforced only with Cilium's host firewall (off by default): it does not change pod traffic`,
      "info",
    );
  return {
    kind,
    namespace,
    name: o.name,
    key: namespace ? `${namespace}/${o.name}` : o.name,
    specIndex,
    field,
    endpointSelector: isObj(spec.endpointSelector) ? normalizedSelector(spec.endpointSelector) : undefined,
    nodeSelector,
    ingress: parsePeerRules(ctx, spec.ingress, "from", `${field}.ingress`),
    ingressDeny: parsePeerRules(ctx, spec.ingressDeny, "from", `${field}.ingressDeny`),
    egress: parsePeerRules(ctx, spec.egress, "to", `${field}.egress`),
    egressDeny: parsePeerRules(ctx, spec.egressDeny, "to", `${field}.egressDeny`),
    enableDefaultDeny: { ingress: bool(edd.ingress), egress: bool(edd.egress) },
    source: { ...refOf(o), ...(namespace ? { namespace } : {}) },
    line: lineOf(spec) || o.line,
  };
}

export function parseCiliumPolicy(o: KObject, diagnostics: Diagnostic[]): CiliumRule[] {
  const ctx: Ctx = { o, diagnostics };
  const out: CiliumRule[] = [];
  if (isObj(o.raw.spec)) out.push(parseRule(ctx, o.raw.spec, -1));
  arr(o.raw.specs).forEach((s, i) => {
    if (isObj(s)) out.push(parseRule(ctx, s, i));
  });
  // CiliumNetworkPolicy.Parse: one rule that fails Sanitize rejects the policy, every spec of it.
  return ctx.rejected === undefined ? out : [];
}
