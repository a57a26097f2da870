/** `ktl trace`: one request from a source to a destination, hop by hop, as the cluster would handle it. */
import {
  buildProxyIndex,
  formatProbability,
  loadModel,
  nearMissesOf,
  nearMissLines,
  parseAnyDestination,
  parseTraceSource,
  reasonAfterVerdict,
  sourceAddressText,
  stepTitle,
  traceL7,
  verdictMark,
  type L7TraceResult,
  type Protocol,
  isWorkloadQuery,
  traceWorkload,
  type TraceRef,
  unmodelledFor,
  unmodelledHeadline,
} from "../../engine/index.ts";
import { readInputs, table, UsageError, type Output } from "../io.ts";
import { flagString, flagStrings, isOn, parseArgs, type FlagSpec } from "../args.ts";
import { addHttpHeader, parseHttpRequestLine, type HttpRequest } from "../../engine/http/request.ts";
import {
  exitFor,
  omissionsHeadline,
  omissionsOf,
  oneLine,
  reportDiagnostics,
  requireObjects,
} from "../report.ts";
import { cniOption, parsePortProtocol } from "./reach.ts";
import { ASSUME_FLAGS, ASSUME_HELP, assumeOption } from "../assume.ts";

export const help = `ktl trace --from SRC --to DST [--protocol TCP|UDP|SCTP] [--http 'METHOD PATH'] [--header 'Name: value']... [--json] INPUT...

One request, from a source to a destination, as the cluster would handle it:
how the destination resolves, which endpoints kube-proxy on the handling node
chooses among (traffic policies, topology hints, trafficDistribution,
terminating endpoints) and with what chance, the source address each backend
sees (masquerade or not), and NetworkPolicy egress at the source and ingress
at each backend. Every decision names the object and line that made it.

SRC:  pod:NAMESPACE/NAME      a pod sends it
      node:NAME               a process in the node's host network sends it
      external:IP@NODE        a client outside the cluster, arriving at NODE
      workload:NAMESPACE/NAME every pod of a Deployment, StatefulSet, DaemonSet...
                              (workload:NAMESPACE/KIND/NAME when two share a name):
                              all, some or none allowed, each pod's verdict, and
                              the trace of one (a refused one when some are)
DST:  service:NAMESPACE/NAME:PORT   the Service port (for an external SRC: the
                                    way in its type gives, LoadBalancer or NodePort)
      pod:NAMESPACE/NAME:PORT       the pod's IP directly
      workload:NAMESPACE/NAME:PORT  each pod of a workload, on its IP
      ip:ADDRESS:PORT               any address: a ClusterIP, external IP,
                                    LoadBalancer IP, node IP (NodePort), pod IP
      gateway:NAMESPACE/NAME:PORT   a Gateway API Gateway's listener: its data
                                    plane's Service, the attached HTTPRoutes'
                                    choice, then the gateway pods to the backends
      ingress:NAMESPACE/NAME:PORT   an Ingress, through its controller (ingress-nginx
                                    conventions: pods app.kubernetes.io/name=ingress-nginx)
      host:NAME:PORT                a DNS name as the cluster resolves it (a Service,
                                    a mesh ServiceEntry host, or outside the cluster);
                                    an Istio sidecar on the source routes it

  --protocol  TCP (default), UDP or SCTP
  --http      make it an HTTP request, such as --http 'GET /api?x=1': L7
              policies (Cilium HTTP rules) judge it; httpStatus says what
              the client gets (200 reaches a pod, 403 an L7 policy refused)
  --header    add a request header, 'Name: value' (repeatable)
  --cni NAME  the CNI that enforces policy: generic (default), calico,
              cilium, cilium-kpr, flannel; decides what Kubernetes leaves
              to the CNI (policy before or after masquerade)
  --json      machine-readable output (see the ktl CLI contract); also -o json
${ASSUME_HELP}

Objects, fields and documents the answer leaves out are named first (with
--json in "unmodelled", "skipped" and "replaced"); a document that could not
be read makes ktl exit 1, an input with no Kubernetes object exit 2.

kube-proxy is modelled at v1.35, iptables and nftables modes, default feature
gates, local traffic detected by cluster CIDR, masqueradeAll off.`;

function where(ref: TraceRef | undefined): string {
  if (!ref) return "";
  const obj = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
  return `${obj}${ref.field ? ` ${ref.field}` : ""}, ${ref.file}:${ref.line}`;
}

function printHuman(t: L7TraceResult, from: string, to: string, protocol: string, io: Output): void {
  // Each line is one line whatever a name in it holds; tables escape their own cells.
  const say = (s: string) => io.out(oneLine(s));
  say(`Trace ${from} -> ${to} (${protocol})${t.profile ? `, CNI: ${t.profile}` : ""}`);
  if (t.assumed?.length) say(`Assumed by the cluster profile (not in the input): ${t.assumed.join("; ")}`);
  say("");
  t.hops.forEach((h, i) => {
    say(
      `${String(i + 1).padStart(2)}. [${verdictMark(h.verdict).padEnd(4)}] ${stepTitle(h.step)}: ${h.detail}`,
    );
    if (h.ref) say(`             at ${where(h.ref)}`);
  });
  say("");
  const rejected = t.kubeProxy?.action === "reject";
  say(
    `${t.verdict.toUpperCase()}${rejected ? " (kube-proxy REJECT)" : ""}${t.httpStatus ? ` (HTTP ${t.httpStatus})` : ""}: ${reasonAfterVerdict(t.reason)}`,
  );
  if (t.decidedBy)
    say(
      `Decided by: ${t.decidedBy.layer}${t.decidedBy.kind ? ` (${t.decidedBy.kind} ${t.decidedBy.namespace ? `${t.decidedBy.namespace}/` : ""}${t.decidedBy.name}${t.decidedBy.line ? `, line ${t.decidedBy.line}` : ""})` : ""}`,
    );
  for (const l of nearMissLines(nearMissesOf(t.hops))) say(l);
  if (t.redirect)
    say(`Redirect: ${t.redirect.scheme}://${t.redirect.host}:${t.redirect.port}${t.redirect.path}`);
  if (t.backends?.length) {
    say("");
    io.out(
      table([
        ["BACKEND", "SUBSET", "SHARE"],
        ...t.backends.map((b) => [`${b.service}:${b.port}`, b.subset ?? "-", formatProbability(b.weight)]),
      ]),
    );
  }
  if (t.endpoints.length) {
    say(`Source address at the backends: ${sourceAddressText(t)}`);
    say("");
    const rows = [["ENDPOINT", "POD", "NODE", "CHANCE", "SOURCE", "VERDICT", "REASON"]];
    for (const e of t.endpoints) {
      rows.push([
        `${e.ip.includes(":") ? `[${e.ip}]` : e.ip}:${e.port}`,
        e.pod ?? "-",
        e.node ?? "-",
        formatProbability(e.probability),
        e.sourceIP,
        e.verdict,
        e.reason,
      ]);
    }
    io.out(table(rows));
  }
}

function httpOf(line: string | undefined, headers: string[]): HttpRequest | undefined {
  if (line === undefined) {
    if (headers.length) throw new UsageError("--header needs --http 'METHOD PATH'");
    return undefined;
  }
  let req = parseHttpRequestLine(line);
  if ("error" in req) throw new UsageError(req.error);
  for (const h of headers) {
    const next = addHttpHeader(req, h);
    if ("error" in next) throw new UsageError(next.error);
    req = next;
  }
  return req;
}

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = {
  booleans: ["json", ...ASSUME_FLAGS.booleans],
  strings: ["from", "to", "protocol", "http", "cni"],
  multiple: ["header", ...ASSUME_FLAGS.multiple],
};

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const fromText = flagString(args, "from");
  const toText = flagString(args, "to");
  if (!fromText)
    throw new UsageError("--from SRC is required (pod:NAMESPACE/NAME, node:NAME or external:IP@NODE)");
  if (!toText)
    throw new UsageError(
      "--to DST is required (service:, pod:, ip:, gateway:, ingress: or host:; see ktl trace --help)",
    );
  const { protocol } = parsePortProtocol(undefined, flagString(args, "protocol"));
  if (isWorkloadQuery(fromText) || isWorkloadQuery(toText)) {
    if (flagString(args, "http") !== undefined)
      throw new UsageError("--http asks one pod: ask a workload's pods without --http, or name one pod");
    return runWorkload(args, fromText, toText, protocol, io);
  }
  const src = parseTraceSource(fromText);
  if ("error" in src) throw new UsageError(src.error);
  const dst = parseAnyDestination(toText);
  if ("error" in dst) throw new UsageError(dst.error);
  const cni = cniOption(flagString(args, "cni"));
  const assume = assumeOption(args);
  const model = loadModel(readInputs(args.positional), {
    ...(cni ? { cni } : {}),
    ...(assume ? { assume } : {}),
  });
  const json = isOn(args, "json");
  reportDiagnostics(model.diagnostics, io, json);
  requireObjects(model);
  const omitted = omissionsOf(model);
  const index = buildProxyIndex(model);
  const http = httpOf(flagString(args, "http"), flagStrings(args, "header"));
  const t = traceL7(model, index, src, dst, protocol, http);
  if (t.error) throw new UsageError(t.error);
  const unmodelled = unmodelledFor(model, "all");
  if (json) io.out(JSON.stringify({ ...t, unmodelled, ...omitted }, null, 2));
  else {
    const headline = unmodelledHeadline(unmodelled);
    if (headline) io.out(headline);
    const missed = omissionsHeadline(omitted);
    if (missed) io.out(missed);
    printHuman(t, fromText, toText, protocol, io);
  }
  return exitFor(omitted);
}

/** A workload on either side: every pod pair traced, the aggregate, each pair's verdict, then one representative's trace. */
function runWorkload(
  args: ReturnType<typeof parseArgs>,
  fromText: string,
  toText: string,
  protocol: Protocol,
  io: Output,
): number {
  const cni = cniOption(flagString(args, "cni"));
  const assume = assumeOption(args);
  const model = loadModel(readInputs(args.positional), {
    ...(cni ? { cni } : {}),
    ...(assume ? { assume } : {}),
  });
  const json = isOn(args, "json");
  reportDiagnostics(model.diagnostics, io, json);
  requireObjects(model);
  const omitted = omissionsOf(model);
  const w = traceWorkload(model, buildProxyIndex(model), fromText, toText, protocol);
  if (w.error) throw new UsageError(w.error);
  const unmodelled = unmodelledFor(model, "all");
  const workload = {
    verdict: w.verdict,
    summary: w.summary,
    from: w.from,
    to: w.to,
    pairs: w.pairs,
    representative: w.representative,
  };
  if (json) {
    // The contract's trace fields describe the representative pair; `workload` is the whole question's answer.
    io.out(JSON.stringify({ ...w.trace, workload, unmodelled, ...omitted }, null, 2));
    return exitFor(omitted);
  }
  const headline = unmodelledHeadline(unmodelled);
  if (headline) io.out(headline);
  const missed = omissionsHeadline(omitted);
  if (missed) io.out(missed);
  io.out(oneLine(`Workload question ${fromText} -> ${toText} (${protocol})`));
  io.out(oneLine(`${w.verdict.toUpperCase()}: ${w.summary}`));
  io.out("");
  io.out(
    table([
      ["FROM", "TO", "VERDICT", "REASON"],
      ...w.pairs.map((p) => [p.from, p.to, p.verdict, reasonAfterVerdict(p.reason)]),
    ]),
  );
  io.out("");
  io.out(
    `One pair, traced hop by hop (${w.verdict === "allow" ? "the first" : "the first that is not allowed"}):`,
  );
  printHuman(w.trace, w.representative.from, w.representative.to, protocol, io);
  return exitFor(omitted);
}
