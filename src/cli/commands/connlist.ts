/** `ktl connlist`: workload-level connectivity in np-guard netpol-analyzer's format. */
import {
  CONNLIST_FORMATS,
  computeConnlist,
  formatConnlist,
  loadModel,
  unmodelledFor,
  unmodelledHeadline,
  type ConnlistFormat,
} from "../../engine/index.ts";
import { focusConnlist, parseFocus } from "../../engine/connlist/focus.ts";
import { computeExposure } from "../../engine/connlist/exposure.ts";
import { computeExplain, formatExplainTxt } from "../../engine/connlist/explain.ts";
import { EXPOSURE_FORMATS, formatExposure } from "../../engine/connlist/format.ts";
import { readInputs, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import {
  exitFor,
  omissionsHeadline,
  omissionsOf,
  oneLine,
  reportDiagnostics,
  requireObjects,
} from "../report.ts";

export const help = `ktl connlist [--format txt|json|md|dot|csv|svg] [--exposure] [--explain] [--focusworkload W [--focusworkload-peer P] [--focus-direction D]] [--focus-conn C] INPUT...

Which workloads may talk to which, on which ports: one line per ordered pair
of distinct nodes with at least one permitted connection, in the text format
of np-guard's netpol-analyzer (\`netpol-analyzer list\`), so a pipeline built
on it can switch to ktl unchanged:

  src => dst : conns
  default/frontend[Deployment] => default/backend[Deployment] : TCP 9090
  0.0.0.0-255.255.255.255[External] => default/frontend[Deployment] : TCP 8080
  {ingress-controller} => shop/web[Deployment] : TCP 8080

Nodes are workloads (ns/name[Kind]: Deployment, ReplicaSet, StatefulSet,
DaemonSet, Job, CronJob, ReplicationController, or a pod grouped by its
controller ownerReference, [Pod] when it has none), IPv4 ranges cut from the
ipBlocks of all policies ([External]) and {ingress-controller} for Ingress and
OpenShift Route backends. conns lists SCTP, TCP and UDP port ranges, or
"All Connections". Lines are sorted byte by byte (LC_ALL=C sort).

Two conventions, on purpose:
  connlist follows netpol-analyzer's model: pods have no IPs, so ipBlock never
    matches a pod and selectors never match an IP; hostNetwork is ignored
    (such pods are under NetworkPolicy like any other); a workload is never
    paired with itself; Services only matter for Ingress/Route backends.
  reach and trace follow upstream Kubernetes: every pod has its IP, ipBlock
    rules match pod IPs, hostNetwork pods are outside NetworkPolicy, and a pod's
    traffic to itself is judged like any other pair.

  --format txt   netpol-analyzer's text (default); nothing at all when no
                 connection is permitted
  --format json  the same lines as [{"src", "dst", "conn"}]
  --format md    a Markdown table (src | dst | conn)
  --format dot   a Graphviz digraph, workloads grouped by namespace
  --focusworkload W        only the connections of workload W (name,
                           namespace/name or Kind/namespace/name; several
                           separated by commas), as netpol-analyzer focuses
  --focusworkload-peer P   of those, only the ones whose other end is P
  --focus-direction D      ingress: into W only; egress: out of W only
  --focus-conn tcp-8080    only the connections that permit this one,
                           each shown with it alone
  --format svg   a picture that opens in any browser (no Graphviz needed): a
                 column per namespace, an arrow per connection with its ports
  --format csv   netpol-analyzer's CSV: a header src,dst,conn, one row a
                 connection (what the input leaves out goes to stderr)
  --exposure     netpol-analyzer's exposure analysis (list --exposure), in
                 txt, json, md or csv: after the list, per workload, what it
                 may send to and receive from peers the rules name that are
                 not workloads of the input (entire-cluster, backend/[all
                 pods], [namespace with {env=prod}]/[pod with {app=x}]), its
                 IP lines, and the workloads no policy protects. Each line is
                 the decider's verdict for synthetic pods standing for the
                 peer; what it cannot be asked (a named port toward such a
                 peer, a selector no pod satisfies) is listed under "Not
                 judged". Not with the focus options.
  --explain      netpol-analyzer's explanation (list --explain), in txt or
                 json: every ordered pair of nodes, allowed or not, every
                 protocol and port range at once, split into the port ranges
                 that share one explanation; per direction the verdict and
                 every object that took part (the tiers' Pass rules, each
                 NetworkPolicy rule that admits, or each policy that isolates
                 the pod and why none of its rules admits). Pairs that only
                 the defaults allow are listed at the end. With --exposure,
                 the exposure analysis follows (txt). Not with the focus
                 options.

Every policy layer counts: NetworkPolicy and the cluster tiers
(ClusterNetworkPolicy v1alpha2, AdminNetworkPolicy and
BaselineAdminNetworkPolicy v1alpha1, as netpol-analyzer reads them). A
policy object that ktl does not evaluate (a CiliumNetworkPolicy, Calico or
Antrea policy, ...) is named on the first line of the output; with
--format json the output is then {"connections": [...], "unmodelled": [...]}
instead of the bare array, so that no consumer takes it for a full answer.

A document that could not be read is named on the first line too (with
--format json, in "skipped"), and so is an object a later one of the same
kind, namespace and name replaced ("replaced", as kubectl apply does).

Warnings (unresolved Ingress backends, blocked ingress-controller targets,
bad documents) go to stderr, never to stdout. Exit 0 on success, 1 when a
document could not be read (the list misses it), 2 on bad usage or an input
with no Kubernetes object.`;

/** Node placement and pod IPs play no part in netpol-analyzer's model, so their warnings are noise here. */
const PLACEMENT_CODES = new Set(["KTL202", "KTL203", "KTL205"]);

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = {
  strings: ["format", "focusworkload", "focusworkload-peer", "focus-direction", "focus-conn"],
  booleans: ["exposure", "explain"],
};

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const format = (flagString(args, "format") ?? "txt").toLowerCase();
  if (!(CONNLIST_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format must be one of ${CONNLIST_FORMATS.join(", ")}, not "${format}"`);
  const focus = parseFocus({
    workload: flagString(args, "focusworkload"),
    peer: flagString(args, "focusworkload-peer"),
    direction: flagString(args, "focus-direction"),
    conn: flagString(args, "focus-conn"),
  });
  if ("error" in focus) throw new UsageError(focus.error);
  const exposure = isOn(args, "exposure");
  if (exposure && !(EXPOSURE_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--exposure writes ${EXPOSURE_FORMATS.join(", ")}, not "${format}"`);
  if (exposure && argv.some((a) => a.startsWith("--focus")))
    throw new UsageError("--exposure reports every workload: it does not combine with the focus options");
  const explain = isOn(args, "explain");
  if (explain && format !== "txt" && format !== "json")
    throw new UsageError(`--explain writes txt or json, not "${format}"`);
  if (explain && exposure && format !== "txt")
    throw new UsageError("--explain with --exposure writes txt only");
  if (explain && argv.some((a) => a.startsWith("--focus")))
    throw new UsageError("--explain explains every pair: it does not combine with the focus options");
  const model = loadModel(readInputs(args.positional));
  // The focus narrows the decider's answer; it judges nothing itself (engine/connlist/focus.ts).
  const list = focusConnlist(computeConnlist(model), focus);
  reportDiagnostics(
    [...model.diagnostics.filter((d) => !PLACEMENT_CODES.has(d.code)), ...list.diagnostics],
    io,
    true,
  );
  requireObjects(model);
  const omitted = omissionsOf(model);
  const unmodelled = unmodelledFor(model, "pod");
  const headlines = [unmodelledHeadline(unmodelled), omissionsHeadline(omitted)].filter(
    (h): h is string => h !== undefined,
  );
  if (explain) {
    // The explanation is the decider's reasons per direction (engine/connlist/explain.ts), worded as upstream.
    const e = computeExplain(model);
    if (format === "json") {
      io.out(JSON.stringify({ ...e, unmodelled, ...omitted }, null, 2));
      return exitFor(omitted);
    }
    for (const headline of headlines) io.out(headline);
    let text = formatExplainTxt(e);
    if (exposure) {
      const exposureText = formatExposure({ ...list, lines: [] }, computeExposure(model, list), "txt");
      text += "\n" + exposureText;
    }
    if (text) io.out(text.endsWith("\n") ? text.slice(0, -1) : text);
    return exitFor(omitted);
  }
  if (format === "json" && (headlines.length || omitted.replaced.length)) {
    // Not netpol-analyzer's bare array: a consumer that expects it fails instead of trusting an answer that ignores a policy or a document.
    const connections = list.lines.map((l) => ({ src: l.src, dst: l.dst, conn: l.conn }));
    const exposed = exposure
      ? {
          exposure: JSON.parse(
            formatExposure({ ...list, lines: [] }, computeExposure(model, list), "json"),
          ) as unknown,
        }
      : {};
    io.out(JSON.stringify({ connections, unmodelled, ...omitted, ...exposed }, null, 2));
    return exitFor(omitted);
  }
  // CSV has no comment: its headline goes to stderr, so the file stays rows of data.
  for (const headline of headlines)
    if (format === "csv" || format === "svg") io.err(headline);
    else io.out(format === "dot" ? `// ${headline}` : format === "md" ? `> ${headline}\n` : headline);
  // A peer's name is one line in every text format (a raw newline would start a line of its own).
  const lines = list.lines.map((l) => ({ ...l, src: oneLine(l.src), dst: oneLine(l.dst) }));
  const shown = { ...list, lines };
  const text = exposure
    ? formatExposure(shown, computeExposure(model, list), format as ConnlistFormat)
    : formatConnlist(shown, format as ConnlistFormat);
  if (text) io.out(text.endsWith("\n") ? text.slice(0, -1) : text);
  return exitFor(omitted);
}
