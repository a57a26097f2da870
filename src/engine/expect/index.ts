/**
 * Policy tests as files (`ktl test`): expectations about traffic ("from
 * shop/frontend to service:shop/backend:8080 expect allow"), checked against
 * the model by the same trace the playground and `ktl trace` run. Two input
 * forms: ktl's own (a `tests:` list) and netassert v2's test list (the fields
 * that map onto a static model: see NETASSERT_FIELDS).
 *
 * A source or destination may name many pods (a workload, a namespace): the
 * expectation holds when every pair meets it, so "expect drop" from a
 * namespace means no pod of it gets through.
 */
import { externalAtNode, parseExternalAtNode } from "../model/ids.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { parseYamlFile } from "../parse/yaml.ts";
import { lineOf } from "../parse/positions.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import { parseAnyDestination, traceL7 } from "../l7/index.ts";
import type { TraceResult } from "../trace/types.ts";

export type ExpectedVerdict = "allow" | "drop" | "partial";

export interface Expectation {
  name: string;
  /** A source as the test wrote it: pod:, node:, external:, namespace:, workload: or NAMESPACE/NAME. */
  from: string;
  /** A destination: anything `ktl trace --to` takes, or namespace:NS:PORT, workload:NS/NAME:PORT, NS/NAME:PORT. */
  to: string;
  protocol: Protocol;
  expect: ExpectedVerdict;
  /** With "allow": whether the backends must (true) or must not (false) see the client's own address. */
  sourceIPPreserved?: boolean;
  http?: { method: string; path: string; headers: Record<string, string> };
  file: string;
  doc: number;
  line: number;
  format: "ktl" | "netassert";
}

export interface ExpectationCase {
  from: string;
  to: string;
  verdict: string;
  reason: string;
  sourceIPPreserved: boolean;
  decidedBy?: string;
}

export interface ExpectationResult {
  name: string;
  file: string;
  line: number;
  pass: boolean;
  /** The pairs checked, each with its verdict and the rule that decided it. */
  cases: ExpectationCase[];
  /** Why it failed, one line per failing pair (at most MAX_FAILURE_LINES) or per problem. */
  failures: string[];
  /** A one-line account of the decision (the first failing pair's, or the first pair's). */
  summary: string;
  /**
   * Set when the test could not be run, which is not a verdict: it names a pod, workload or namespace the
   * input does not have, or too many pairs. JUnit reports it as an error, not a failure.
   */
  error?: string;
}

/** Pairs one expectation may expand to: beyond this the test must name fewer pods. */
export const MAX_PAIRS = 20_000;
const MAX_FAILURE_LINES = 10;

/**
 * The netassert v2 fields that ktl reads; the others (timeoutSeconds,
 * attempts, type) describe how netassert probes a live cluster and have no
 * meaning for a static model.
 */
export const NETASSERT_FIELDS = [
  "name",
  "protocol",
  "targetPort",
  "exitCode",
  "src.k8sResource.{kind,name,namespace}",
  "dst.k8sResource.{kind,name,namespace}",
  "dst.host.name",
];

type Raw = Record<string, unknown>;

function isMap(v: unknown): v is Raw {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function diag(file: string, doc: number, line: number, message: string, hint?: string): Diagnostic {
  const d: Diagnostic = { code: "KTL801", severity: "error", message, file, doc, line, column: 0 };
  if (hint) d.hint = hint;
  return d;
}

function protocolOf(v: unknown): Protocol | undefined {
  const p = String(v ?? "TCP").toUpperCase();
  return p === "TCP" || p === "UDP" || p === "SCTP" ? p : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : typeof v === "number" ? String(v) : undefined;
}

function parseHttp(v: unknown): Expectation["http"] | undefined {
  if (v === undefined) return undefined;
  const text = isMap(v) ? `${str(v.method) ?? "GET"} ${str(v.path) ?? "/"}` : String(v);
  const [method = "GET", path = "/"] = text.trim().split(/\s+/);
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  if (isMap(v) && isMap(v.headers)) for (const [k, h] of Object.entries(v.headers)) headers[k] = String(h);
  return { method: method.toUpperCase(), path, headers };
}

function ktlTest(
  item: Raw,
  i: number,
  file: string,
  doc: number,
  out: Expectation[],
  diags: Diagnostic[],
): void {
  const line = lineOf(item);
  const name = str(item.name) ?? `test ${i + 1}`;
  const from = str(item.from);
  const to = str(item.to);
  const expect = str(item.expect)?.toLowerCase();
  const protocol = protocolOf(item.protocol);
  if (!from || !to)
    return void diags.push(
      diag(
        file,
        doc,
        line,
        `test "${name}": needs from and to`,
        "from: shop/frontend, to: service:shop/backend:8080",
      ),
    );
  if (expect !== "allow" && expect !== "drop" && expect !== "partial")
    return void diags.push(
      diag(
        file,
        doc,
        lineOf(item, "expect") || line,
        `test "${name}": expect must be allow, drop or partial, not "${String(item.expect ?? "")}"`,
      ),
    );
  if (!protocol)
    return void diags.push(
      diag(
        file,
        doc,
        lineOf(item, "protocol") || line,
        `test "${name}": protocol must be TCP, UDP or SCTP, not "${String(item.protocol)}"`,
      ),
    );
  const e: Expectation = { name, from, to, protocol, expect, file, doc, line, format: "ktl" };
  if (typeof item.sourceIPPreserved === "boolean") e.sourceIPPreserved = item.sourceIPPreserved;
  const http = parseHttp(item.http);
  if (http) e.http = http;
  out.push(e);
}

/** netassert's k8sResource: a pod, or a workload by its lower-case kind. */
function netassertResource(r: unknown): string | undefined {
  if (!isMap(r)) return undefined;
  const kind = str(r.kind)?.toLowerCase();
  const name = str(r.name);
  const ns = str(r.namespace);
  if (!kind || !name || !ns) return undefined;
  return kind === "pod" ? `pod:${ns}/${name}` : `workload:${ns}/${name}`;
}

function netassertTest(
  item: Raw,
  i: number,
  file: string,
  doc: number,
  out: Expectation[],
  diags: Diagnostic[],
): void {
  const line = lineOf(item);
  const name = str(item.name) ?? `test ${i + 1}`;
  const src = isMap(item.src) ? netassertResource(item.src.k8sResource) : undefined;
  if (!src)
    return void diags.push(
      diag(
        file,
        doc,
        line,
        `netassert test "${name}": src.k8sResource needs kind, name and namespace (a host cannot be a source)`,
      ),
    );
  const port = Number(item.targetPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return void diags.push(
      diag(
        file,
        doc,
        lineOf(item, "targetPort") || line,
        `netassert test "${name}": targetPort must be a port number`,
      ),
    );
  const dst = isMap(item.dst) ? item.dst : {};
  const res = netassertResource(dst.k8sResource);
  const host = isMap(dst.host) ? str(dst.host.name) : undefined;
  let to: string;
  if (res) to = `${res}:${port}`;
  else if (host)
    to = /^[\d.]+$|:/.test(host)
      ? `ip:${host.includes(":") ? `[${host}]` : host}:${port}`
      : `host:${host}:${port}`;
  else
    return void diags.push(diag(file, doc, line, `netassert test "${name}": dst needs k8sResource or host`));
  const protocol = protocolOf(item.protocol);
  if (!protocol)
    return void diags.push(
      diag(
        file,
        doc,
        lineOf(item, "protocol") || line,
        `netassert test "${name}": protocol must be tcp or udp`,
      ),
    );
  // netassert: exitCode 0 means the probe connected; anything else that it did not.
  const expect: ExpectedVerdict = Number(item.exitCode ?? 0) === 0 ? "allow" : "drop";
  out.push({ name, from: src, to, protocol, expect, file, doc, line, format: "netassert" });
}

/** Reads a test file: ktl's `tests:` list (or a bare list of them), or netassert v2's list. */
export function parseExpectations(
  file: string,
  text: string,
): { expectations: Expectation[]; diagnostics: Diagnostic[] } {
  const parsed = parseYamlFile(file, text);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const expectations: Expectation[] = [];
  for (const d of parsed.documents) {
    const list = Array.isArray(d.value)
      ? d.value
      : isMap(d.value) && Array.isArray(d.value.tests)
        ? d.value.tests
        : undefined;
    if (d.value === null || d.value === undefined) continue;
    if (!list) {
      diagnostics.push(
        diag(
          file,
          d.index,
          d.line,
          "a test file holds a list of tests, or a mapping with a tests: list",
          "tests:\n  - {name: ..., from: ..., to: ..., expect: allow}",
        ),
      );
      continue;
    }
    list.forEach((item: unknown, i: number) => {
      if (!isMap(item))
        return void diagnostics.push(diag(file, d.index, d.line, `test ${i + 1} is not a mapping`));
      if ("src" in item || "dst" in item) netassertTest(item, i, file, d.index, expectations, diagnostics);
      else ktlTest(item, i, file, d.index, expectations, diagnostics);
    });
  }
  // Two tests of one name: a report (JUnit, the Tests tab) could not tell them apart.
  const seen = new Map<string, Expectation>();
  for (const e of expectations) {
    const first = seen.get(e.name);
    if (!first) seen.set(e.name, e);
    else
      diagnostics.push(
        diag(
          file,
          0,
          e.line,
          `test name ${JSON.stringify(e.name)} is used twice, at lines ${first.line} and ${e.line}: a report could not tell the two apart`,
          "Give each test its own name.",
        ),
      );
  }
  return { expectations, diagnostics };
}

/** A representative address of an IPv4 CIDR for an external client: TEST-NET-3's 203.0.113.10 when inside, else the first host. */
function representative(cidr: string): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)(?:\/(\d+))?$/.exec(cidr);
  if (!m) return /^[0-9a-f:]+$/i.test(cidr) ? cidr : undefined;
  const bits = m[5] === undefined ? 32 : Number(m[5]);
  const octets = m.slice(1, 5).map(Number);
  if (bits > 32 || octets.some((o) => o > 255)) return undefined;
  const base = octets.reduce((a, o) => a * 256 + o, 0);
  const size = 2 ** (32 - bits);
  const start = base - (base % size);
  const test = ((203 * 256 + 0) * 256 + 113) * 256 + 10;
  const ip = test >= start && test < start + size ? test : size > 2 ? start + 1 : start;
  return [24, 16, 8, 0].map((s) => Math.floor(ip / 2 ** s) % 256).join(".");
}

function podsOfWorkload(model: Model, ns: string, name: string): Pod[] {
  return model.pods.filter((p) => p.workload.namespace === ns && p.workload.name === name);
}

/** Sources as trace strings, or an error naming what the input lacks. */
function expandFrom(model: Model, from: string): string[] | string {
  const [kind, rest = ""] = from.includes(":")
    ? [from.slice(0, from.indexOf(":")), from.slice(from.indexOf(":") + 1)]
    : ["workload", from];
  switch (kind) {
    case "pod":
    case "node":
      return [from];
    case "external": {
      if (parseExternalAtNode(from)) return [from];
      const ip = representative(rest);
      if (!ip) return `external:${rest}: not an address or IPv4 CIDR`;
      if (!model.nodes.length) return "an external client needs a node to arrive at, and the input has none";
      return model.nodes.map((n) => externalAtNode(ip, n.name));
    }
    case "namespace": {
      const pods = model.pods.filter((p) => p.namespace === rest);
      return pods.length ? pods.map((p) => `pod:${p.key}`) : `namespace ${rest} has no pods in the input`;
    }
    case "workload": {
      const [ns = "", name = ""] = rest.split("/");
      const pods = podsOfWorkload(model, ns, name);
      if (pods.length) return pods.map((p) => `pod:${p.key}`);
      return model.pods.some((p) => p.key === rest)
        ? [`pod:${rest}`]
        : `no workload or pod ${rest} in the input`;
    }
    default:
      return `unknown source "${from}": use pod:, node:, external:, namespace:, workload: or NAMESPACE/NAME`;
  }
}

/** Destinations as trace strings: the trace's own forms pass through; namespaces and workloads become their pods. */
function expandTo(model: Model, to: string): string[] | string {
  const colon = to.indexOf(":");
  const kind = colon > 0 ? to.slice(0, colon) : "";
  if (["service", "pod", "ip", "gateway", "ingress", "host"].includes(kind)) return [to];
  const rest = kind === "namespace" || kind === "workload" ? to.slice(colon + 1) : to;
  const p = rest.lastIndexOf(":");
  const port = p > 0 ? rest.slice(p + 1) : "";
  const what = p > 0 ? rest.slice(0, p) : rest;
  if (!port) return `destination "${to}" needs a port (…:PORT)`;
  const pods =
    kind === "namespace"
      ? model.pods.filter((x) => x.namespace === what)
      : (() => {
          const [ns = "", name = ""] = what.split("/");
          return podsOfWorkload(model, ns, name);
        })();
  if (!pods.length)
    return kind === "namespace"
      ? `namespace ${what} has no pods in the input`
      : `no workload ${what} in the input`;
  return pods.map((x) => `pod:${x.key}:${port}`);
}

function decidedByText(t: TraceResult): string | undefined {
  const d = t.decidedBy;
  if (!d) return undefined;
  const obj = d.name ? `${d.namespace ? `${d.namespace}/` : ""}${d.name}` : "";
  return [d.layer, obj, d.rule ? `rule ${d.rule}` : ""].filter(Boolean).join(" ");
}

/** Why one traced pair does not meet the expectation, or undefined when it does. */
export function caseFailure(
  e: Pick<Expectation, "expect" | "sourceIPPreserved">,
  t: { verdict: string; reason: string; sourceIPPreserved: boolean },
): string | undefined {
  if (t.verdict !== e.expect) return `${t.verdict}, expected ${e.expect}: ${t.reason}`;
  if (
    e.sourceIPPreserved !== undefined &&
    t.verdict !== "drop" &&
    t.sourceIPPreserved !== e.sourceIPPreserved
  )
    return `source address ${t.sourceIPPreserved ? "preserved" : "masqueraded"}, expected ${e.sourceIPPreserved ? "preserved" : "masqueraded"}`;
  return undefined;
}

export function runExpectation(model: Model, index: ProxyIndex, e: Expectation): ExpectationResult {
  const result: ExpectationResult = {
    name: e.name,
    file: e.file,
    line: e.line,
    pass: false,
    cases: [],
    failures: [],
    summary: "",
  };
  const froms = expandFrom(model, e.from);
  const tos = expandTo(model, e.to);
  for (const x of [froms, tos]) if (typeof x === "string") result.failures.push(x);
  if (typeof froms === "string" || typeof tos === "string") {
    result.summary = result.failures.join("; ");
    result.error = result.summary;
    return result;
  }
  const pairs = froms.length * tos.length;
  if (pairs > MAX_PAIRS) {
    result.failures.push(
      `${pairs} pairs to check (more than ${MAX_PAIRS}): name a workload or pod instead of a namespace`,
    );
    result.summary = result.failures[0]!;
    result.error = result.summary;
    return result;
  }
  let failing = 0;
  let checked = 0;
  for (const from of froms) {
    for (const to of tos) {
      // A pod to itself is not what a test about two parties means.
      if (from.startsWith("pod:") && to.startsWith(`${from}:`)) continue;
      // As `ktl trace` answers (engine/l7 traceL7): every destination kind, routers and the mesh included.
      const dst = parseAnyDestination(to);
      checked++;
      if ("error" in dst) {
        result.failures.push(`${from} -> ${to}: ${dst.error}`);
        failing++;
        continue;
      }
      const t = traceL7(model, index, from, dst, e.protocol, e.http);
      if (t.error) {
        result.failures.push(`${from} -> ${to}: ${t.error}`);
        failing++;
        continue;
      }
      const c: ExpectationCase = {
        from,
        to,
        verdict: t.verdict,
        reason: t.reason,
        sourceIPPreserved: t.sourceIPPreserved,
      };
      const by = decidedByText(t);
      if (by) c.decidedBy = by;
      result.cases.push(c);
      const why = caseFailure(e, t);
      if (why) {
        failing++;
        if (result.failures.length < MAX_FAILURE_LINES) result.failures.push(`${from} -> ${to}: ${why}`);
      }
    }
  }
  if (!result.cases.length && !failing)
    result.failures.push("no pair to check (the source and the destination are the same pod)");
  if (failing > MAX_FAILURE_LINES)
    result.failures.push(`… ${failing - MAX_FAILURE_LINES} more failing pairs`);
  result.pass = result.failures.length === 0;
  const first = result.pass ? result.cases[0] : undefined;
  result.summary = first
    ? `${result.cases.length === 1 ? "" : `${result.cases.length} pairs, `}${first.verdict}: ${first.decidedBy ? `${first.decidedBy}; ` : ""}${first.reason.replace(/^(dropped|rejected): /, "")}`
    : checked
      ? `${failing} of ${checked} pairs fail`
      : (result.failures[0] ?? "nothing checked");
  return result;
}

export function runExpectations(
  model: Model,
  index: ProxyIndex,
  expectations: readonly Expectation[],
): ExpectationResult[] {
  return expectations.map((e) => runExpectation(model, index, e));
}
