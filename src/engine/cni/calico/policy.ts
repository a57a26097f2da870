/**
 * Calico's projectcalico.org/v3 NetworkPolicy, GlobalNetworkPolicy and Tier
 * as the engine reads them (api/pkg/apis/projectcalico/v3 networkpolicy.go,
 * globalnetworkpolicy.go, tier.go; tigera/docs reference/resources):
 * - `types` omitted: Ingress when there are no egress rules (a rule-less
 *   policy too), Egress when there are egress rules and no ingress rules,
 *   both when there are both (NetworkPolicySpec.Types).
 * - `order` omitted is infinite: after every ordered policy; ties by name.
 * - `tier` omitted is `default`; a Tier's `defaultAction` is Deny unless Pass.
 * - ports are numbers, "a:b" ranges (inclusive) or named ports.
 */
import { refOf, type KObject, type SourceRef } from "../../parse/manifests.ts";
import { lineOf } from "../../parse/positions.ts";
import { arr, isObj, num, str, strList, type Json } from "../../parse/values.ts";
import type { Diagnostic } from "../../parse/diagnostics.ts";
import { parseCidr, type Cidr } from "../../model/ip.ts";
import { isSelectorError, MAX_SELECTOR_DEPTH, parseCalicoSelector, type CalicoSelector } from "./selector.ts";

export type CalicoAction = "Allow" | "Deny" | "Pass" | "Log";

export type CalicoPort = { from: number; to: number } | { name: string };

export interface CalicoEntityRule {
  line: number;
  selector?: CalicoSelector;
  notSelector?: CalicoSelector;
  namespaceSelector?: CalicoSelector;
  serviceAccountNames?: string[];
  serviceAccountSelector?: CalicoSelector;
  nets: Cidr[];
  notNets: Cidr[];
  /** null: any port. */
  ports: CalicoPort[] | null;
  notPorts: CalicoPort[];
  /** A field written but not evaluated (source ports are ephemeral, ...). */
  unmodelled: string[];
}

export interface CalicoRule {
  index: number;
  line: number;
  action: CalicoAction;
  protocol?: string;
  notProtocol?: string;
  source: CalicoEntityRule;
  destination: CalicoEntityRule;
  /** Application-layer (http) or ICMP matches that ktl does not evaluate: the rule is taken to match. */
  unmodelled: string[];
}

export interface CalicoPolicy {
  kind: "NetworkPolicy" | "GlobalNetworkPolicy";
  /** Undefined for GlobalNetworkPolicy. */
  namespace: string | undefined;
  name: string;
  /** "namespace/name" or "name". */
  key: string;
  tier: string;
  order: number | undefined;
  selector: CalicoSelector;
  /** GlobalNetworkPolicy spec.namespaceSelector: the endpoints' namespaces. */
  namespaceSelector?: CalicoSelector;
  serviceAccountSelector?: CalicoSelector;
  ingressType: boolean;
  egressType: boolean;
  ingress: CalicoRule[];
  egress: CalicoRule[];
  source: SourceRef;
  lines: { selector: number; order: number; types: number };
}

export interface CalicoTier {
  name: string;
  order: number | undefined;
  defaultAction: "Deny" | "Pass";
  source?: SourceRef;
}

export function isCalicoObject(o: { apiVersion: string }): boolean {
  return o.apiVersion.startsWith("projectcalico.org/") || o.apiVersion.startsWith("crd.projectcalico.org/");
}

export const CALICO_KINDS = new Set(["NetworkPolicy", "GlobalNetworkPolicy", "Tier"]);

interface Ctx {
  o: KObject;
  diagnostics: Diagnostic[];
}

function selectorAt(ctx: Ctx, parent: Json, key: string, field: string): CalicoSelector | undefined {
  const v = parent[key];
  if (v === undefined || v === null) return undefined;
  const text = typeof v === "string" ? v : "";
  const s = parseCalicoSelector(text);
  if (!isSelectorError(s)) return s;
  const line = lineOf(parent, key) || ctx.o.line;
  const nothing: CalicoSelector = { text, root: { op: "!", arg: { op: "all" } }, canonical: "!all()" };
  if (s.tooDeep) {
    ctx.diagnostics.push({
      code: "KTL453",
      severity: "error",
      file: ctx.o.file,
      doc: ctx.o.doc,
      line,
      column: 0,
      kind: ctx.o.kind,
      name: ctx.o.name,
      ...(ctx.o.namespace ? { namespace: ctx.o.namespace } : {}),
      field,
      message: `${field}: the Calico selector's parentheses nest deeper than ${MAX_SELECTOR_DEPTH} levels (at character ${s.column + 1}); Calico accepts it, ktl does not evaluate it and takes it as selecting nothing`,
      hint: "Flatten the selector: (a && (b && c)) is a && b && c.",
    });
    return nothing;
  }
  ctx.diagnostics.push({
    code: "KTL450",
    severity: "error",
    file: ctx.o.file,
    doc: ctx.o.doc,
    line,
    column: 0,
    kind: ctx.o.kind,
    name: ctx.o.name,
    ...(ctx.o.namespace ? { namespace: ctx.o.namespace } : {}),
    field,
    message: `${field}: Calico selector syntax error at character ${s.column + 1} of "${text}": ${s.error}; Calico rejects the policy, so ktl evaluates it as selecting nothing`,
    hint: "Calico selectors look like app == 'web' && !has(quarantine); quote values, and use == rather than =.",
  });
  // A selector that matches nothing: the policy cannot be applied (calicoctl and the API server reject it).
  return nothing;
}

/**
 * A rule's ports (numorstring.Port): a number, "start:end" or a name. Calico's
 * validation refuses a number outside 0-65535 ("65536") and a range whose
 * start is above its end ("90:80": PortFromRange "minimum port number ... is
 * greater than maximum port number"), so the policy is never stored: each is
 * KTL452, and the entry is left out here.
 */
function parsePorts(ctx: Ctx, list: unknown, field: string): CalicoPort[] {
  const out: CalicoPort[] = [];
  const bad = (i: number, message: string) =>
    ctx.diagnostics.push({
      code: "KTL452",
      severity: "warning",
      file: ctx.o.file,
      doc: ctx.o.doc,
      line: lineOf(list, i) || ctx.o.line,
      column: 0,
      kind: ctx.o.kind,
      name: ctx.o.name,
      ...(ctx.o.namespace ? { namespace: ctx.o.namespace } : {}),
      field: `${field}[${i}]`,
      message: `${field}[${i}]: ${message}; this entry is ignored`,
    });
  const range = (i: number, text: string, from: number, to: number) => {
    if (from > 65535 || to > 65535)
      bad(i, `${JSON.stringify(text)} is not a port: ports run from 0 to 65535, Calico rejects the policy`);
    else if (from > to)
      bad(
        i,
        `minimum port number (${from}) is greater than maximum port number (${to}) in port range ${JSON.stringify(text)}: Calico rejects the policy`,
      );
    else out.push({ from, to });
  };
  arr(list).forEach((p, i) => {
    if (typeof p === "number" && Number.isInteger(p)) {
      if (p < 0) bad(i, `${p} is not a port: ports run from 0 to 65535, Calico rejects the policy`);
      else range(i, String(p), p, p);
    } else if (typeof p === "string") {
      const t = p.trim();
      const m = /^(\d+):(\d+)$/.exec(t);
      if (m) range(i, t, Number(m[1]), Number(m[2]));
      else if (/^\d+$/.test(t)) range(i, t, Number(t), Number(t));
      else out.push({ name: t });
    } else bad(i, `a port is a number, "start:end" or a port name`);
  });
  return out;
}

function parseNets(ctx: Ctx, list: unknown, field: string): Cidr[] {
  const out: Cidr[] = [];
  strList(list).forEach((n, i) => {
    // A bare address is a /32 (or /128) net.
    const c = parseCidr(n.includes("/") ? n : `${n}/${n.includes(":") ? 128 : 32}`).cidr;
    if (c) out.push(c);
    else
      ctx.diagnostics.push({
        code: "KTL452",
        severity: "warning",
        file: ctx.o.file,
        doc: ctx.o.doc,
        line: lineOf(list, i) || ctx.o.line,
        column: 0,
        kind: ctx.o.kind,
        name: ctx.o.name,
        field: `${field}[${i}]`,
        message: `${field}[${i}]: "${n}" is not a CIDR; the net is ignored`,
      });
  });
  return out;
}

function parseEntity(ctx: Ctx, v: unknown, field: string, isSource: boolean): CalicoEntityRule {
  const e: Json = isObj(v) ? v : {};
  const r: CalicoEntityRule = {
    line: lineOf(v) || 0,
    nets: [],
    notNets: [],
    ports: null,
    notPorts: [],
    unmodelled: [],
  };
  const sel = selectorAt(ctx, e, "selector", `${field}.selector`);
  if (sel) r.selector = sel;
  const notSel = selectorAt(ctx, e, "notSelector", `${field}.notSelector`);
  if (notSel) r.notSelector = notSel;
  const nsSel = selectorAt(ctx, e, "namespaceSelector", `${field}.namespaceSelector`);
  if (nsSel) r.namespaceSelector = nsSel;
  if (isObj(e.serviceAccounts)) {
    const names = strList(e.serviceAccounts.names);
    if (names.length) r.serviceAccountNames = names;
    const s = selectorAt(ctx, e.serviceAccounts, "selector", `${field}.serviceAccounts.selector`);
    if (s) r.serviceAccountSelector = s;
  }
  r.nets = [
    ...parseNets(ctx, e.nets, `${field}.nets`),
    ...(str(e.net) ? parseNets(ctx, [e.net], `${field}.net`) : []),
  ];
  r.notNets = [
    ...parseNets(ctx, e.notNets, `${field}.notNets`),
    ...(str(e.notNet) ? parseNets(ctx, [e.notNet], `${field}.notNet`) : []),
  ];
  if (isSource) {
    // Source ports are the client's ephemeral ports: outside what a question names.
    if (e.ports !== undefined || e.notPorts !== undefined) r.unmodelled.push(`${field}.ports (source ports)`);
  } else {
    if (Array.isArray(e.ports)) r.ports = parsePorts(ctx, e.ports, `${field}.ports`);
    r.notPorts = parsePorts(ctx, e.notPorts, `${field}.notPorts`);
  }
  if (e.services !== undefined) r.unmodelled.push(`${field}.services`);
  return r;
}

function protocolName(v: unknown): string | undefined {
  if (typeof v === "number") return v === 6 ? "TCP" : v === 17 ? "UDP" : v === 132 ? "SCTP" : String(v);
  const s = str(v);
  return s === undefined ? undefined : s.toUpperCase();
}

function parseRules(ctx: Ctx, list: unknown, dir: "ingress" | "egress"): CalicoRule[] {
  return arr(list).map((r, index) => {
    const rule: Json = isObj(r) ? r : {};
    const field = `spec.${dir}[${index}]`;
    const action = str(rule.action) ?? "";
    const known: CalicoAction | undefined =
      action === "Allow" || action === "Deny" || action === "Pass" || action === "Log" ? action : undefined;
    if (!known)
      ctx.diagnostics.push({
        code: "KTL452",
        severity: "error",
        file: ctx.o.file,
        doc: ctx.o.doc,
        line: lineOf(rule, "action") || lineOf(r) || ctx.o.line,
        column: 0,
        kind: ctx.o.kind,
        name: ctx.o.name,
        field: `${field}.action`,
        message: `${field}.action: "${action}" is not one of Allow, Deny, Pass, Log; Calico rejects the policy, ktl takes the rule as Log (no effect)`,
      });
    const out: CalicoRule = {
      index,
      line: lineOf(r) || ctx.o.line,
      action: known ?? "Log",
      source: parseEntity(ctx, rule.source, `${field}.source`, true),
      destination: parseEntity(ctx, rule.destination, `${field}.destination`, false),
      unmodelled: [],
    };
    const p = protocolName(rule.protocol);
    if (p) out.protocol = p;
    const np = protocolName(rule.notProtocol);
    if (np) out.notProtocol = np;
    if (rule.http !== undefined) out.unmodelled.push(`${field}.http`);
    if (rule.icmp !== undefined || rule.notICMP !== undefined) out.unmodelled.push(`${field}.icmp`);
    return out;
  });
}

export function parseCalicoPolicy(o: KObject, diagnostics: Diagnostic[]): CalicoPolicy {
  const ctx: Ctx = { o, diagnostics };
  const spec: Json = isObj(o.raw.spec) ? o.raw.spec : {};
  const kind = o.kind === "GlobalNetworkPolicy" ? "GlobalNetworkPolicy" : "NetworkPolicy";
  const namespace = kind === "NetworkPolicy" ? (o.namespace ?? "default") : undefined;
  const ingress = parseRules(ctx, spec.ingress, "ingress");
  const egress = parseRules(ctx, spec.egress, "egress");
  const types = strList(spec.types);
  const p: CalicoPolicy = {
    kind,
    namespace,
    name: o.name,
    key: namespace ? `${namespace}/${o.name}` : o.name,
    tier: str(spec.tier) || "default",
    order: num(spec.order),
    selector: selectorAt(ctx, spec, "selector", "spec.selector") ?? {
      text: "",
      root: { op: "all" },
      canonical: "all()",
    },
    ingressType: types.length ? types.includes("Ingress") : ingress.length > 0 || egress.length === 0,
    egressType: types.length ? types.includes("Egress") : egress.length > 0,
    ingress,
    egress,
    source: { ...refOf(o), ...(namespace ? { namespace } : {}) },
    lines: { selector: lineOf(spec, "selector"), order: lineOf(spec, "order"), types: lineOf(spec, "types") },
  };
  if (kind === "GlobalNetworkPolicy") {
    const ns = selectorAt(ctx, spec, "namespaceSelector", "spec.namespaceSelector");
    if (ns) p.namespaceSelector = ns;
  }
  const sa = selectorAt(ctx, spec, "serviceAccountSelector", "spec.serviceAccountSelector");
  if (sa) p.serviceAccountSelector = sa;
  return p;
}

export function parseCalicoTier(o: KObject): CalicoTier {
  const spec: Json = isObj(o.raw.spec) ? o.raw.spec : {};
  return {
    name: o.name,
    order: num(spec.order),
    defaultAction: str(spec.defaultAction) === "Pass" ? "Pass" : "Deny",
    source: refOf(o),
  };
}
