/**
 * PeerAuthentication and AuthorizationPolicy read once per model (rules 5 and 6 of mesh.ts):
 * the fields the server's sidecar judges by, each with its source line, so a trace
 * never walks the manifests.
 */
import type { KObject } from "../parse/manifests.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, obj, str, strList, strMap } from "../parse/values.ts";

/** spec.selector.matchLabels; undefined without a selector (the namespace's or the mesh's policy). */
type Selector = Record<string, string> | undefined;

export interface PeerAuthSpec {
  obj: KObject;
  selector?: Record<string, string>;
  /** spec.mtls.mode as written (UNSET included). */
  mode?: string;
  /** spec.portLevelMtls: the mode per target port number. */
  portModes: Map<string, string>;
  /** The line of spec.mtls (else of the object). */
  mtlsLine: number;
}

/** One field of a source or operation: `values` when the field is written (it must match), `not` its notField. */
export interface AuthzField {
  values?: string[];
  not: string[];
}

export interface AuthzSource {
  principals: AuthzField;
  namespaces: AuthzField;
  /** requestPrincipals is written: a JWT identity, which ktl does not model (it matches no request). */
  requestPrincipals: boolean;
}

export interface AuthzOperation {
  methods: AuthzField;
  paths: AuthzField;
  ports: AuthzField;
  hosts: AuthzField;
}

export interface AuthzCondition {
  key: string;
  values?: string[];
  notValues: string[];
}

export interface AuthzRule {
  from: AuthzSource[];
  to: AuthzOperation[];
  when: AuthzCondition[];
  line: number;
}

export interface AuthzSpec {
  obj: KObject;
  selector?: Record<string, string>;
  /** spec.action; ALLOW when left out. */
  action: string;
  rules: AuthzRule[];
  /** The line of spec (else of the object). */
  specLine: number;
}

function selectorOf(spec: Record<string, unknown>): Selector {
  const sel = obj(spec.selector);
  return sel ? strMap(sel.matchLabels) : undefined;
}

export function peerAuthSpec(o: KObject): PeerAuthSpec {
  const spec = obj(o.raw.spec) ?? {};
  const portModes = new Map<string, string>();
  for (const [port, v] of Object.entries(obj(spec.portLevelMtls) ?? {})) {
    const mode = str(obj(v)?.mode);
    if (mode !== undefined) portModes.set(port, mode);
  }
  const out: PeerAuthSpec = { obj: o, portModes, mtlsLine: lineOf(obj(spec.mtls)) || o.line };
  const selector = selectorOf(spec);
  if (selector) out.selector = selector;
  const mode = str(obj(spec.mtls)?.mode);
  if (mode !== undefined) out.mode = mode;
  return out;
}

function field(o: Record<string, unknown>, key: string): AuthzField {
  const f: AuthzField = { not: strList(o[`not${key[0]!.toUpperCase()}${key.slice(1)}`]) };
  if (o[key] !== undefined) f.values = strList(o[key]);
  return f;
}

function authzRule(r: unknown, fallbackLine: number): AuthzRule {
  const rule = obj(r) ?? {};
  return {
    from: arr(rule.from).map((f) => {
      const s = obj(obj(f)?.source) ?? {};
      return {
        principals: field(s, "principals"),
        namespaces: field(s, "namespaces"),
        requestPrincipals: s.requestPrincipals !== undefined,
      };
    }),
    to: arr(rule.to).map((t) => {
      const op = obj(obj(t)?.operation) ?? {};
      return {
        methods: field(op, "methods"),
        paths: field(op, "paths"),
        ports: field(op, "ports"),
        hosts: field(op, "hosts"),
      };
    }),
    when: arr(rule.when).map((w) => {
      const c = obj(w) ?? {};
      const cond: AuthzCondition = { key: str(c.key) ?? "", notValues: strList(c.notValues) };
      if (c.values !== undefined) cond.values = strList(c.values);
      return cond;
    }),
    line: lineOf(r) || fallbackLine,
  };
}

export function authzSpec(o: KObject): AuthzSpec {
  const spec = obj(o.raw.spec) ?? {};
  const out: AuthzSpec = {
    obj: o,
    action: str(spec.action) ?? "ALLOW",
    rules: arr(spec.rules).map((r) => authzRule(r, o.line)),
    specLine: lineOf(obj(o.raw.spec)) || o.line,
  };
  const selector = selectorOf(spec);
  if (selector) out.selector = selector;
  return out;
}
