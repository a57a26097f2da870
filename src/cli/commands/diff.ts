/** `ktl diff A B`: flows gained and lost, endpoints that appear or vanish, between two inputs. */
import {
  diffModels,
  loadModel,
  type EndpointChange,
  type FlowChange,
  type InputDiff,
  type WorkloadChange,
} from "../../engine/index.ts";
import { cniOption } from "./reach.ts";
import { readInputs, table, UsageError, type Output } from "../io.ts";
import { mdTable } from "../formats.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import { exitFor, omissionsHeadline, omissionsOf, reportDiagnostics, requireObjects } from "../report.ts";

export const help = `ktl diff [--json | --format text|json|md] [--external-ip IP] [--exit-code] [--limit N] BEFORE AFTER
       (netpol-analyzer's spelling: ktl diff --dir1 BEFORE --dir2 AFTER)

What changes between two inputs (each a file, a directory or - for stdin):
the flows gained and lost, and the endpoints that appear or vanish, with a
one-line summary ("3 flows lost, 1 gained").

- Workload connections: each pair of workloads (and IP ranges, the ingress
  controller) over every port and protocol, as netpol-analyzer's diff
  compares them: added, removed or changed, by any policy layer.
- Pod flows: each pod to each port another pod declares, allowed or not by
  every policy layer (the same decider as reach and trace).
- Service flows: each pod to each Service port, and an external client
  (--external-ip, default 203.0.113.10) arriving at each node for Services
  reachable from outside, as \`ktl trace\` decides them: a flow is gained when
  its verdict rises (drop < partial < allow) and lost when it falls.
- Endpoints: per Service port and node, the backends kube-proxy there
  chooses among, for pod traffic (internal) and external traffic.

Pods are matched by namespace/name; a pod that only one input has is paired
with one of the same workload (same node first), as a Deployment renames
its pods when its template changes.

  --json          machine-readable output (the engine's InputDiff)
  --format md     Markdown for a pull-request comment: the summary, then
                  tables of flows lost, flows gained and endpoints
  --external-ip   the external client's address for external flows
  --cni NAME      the CNI that enforces policy, for both inputs: generic,
                  calico, cilium, cilium-kpr, flannel
  --exit-code     exit 1 when anything changed (like git diff --exit-code)
  --limit N       rows per table for people (default 50; --json lists all)

A document of either input that could not be read is named first (with
--json in "skipped", each entry with its "input": before or after) and ktl
exits 1: the comparison misses it. Exit 2 when neither input holds a
Kubernetes object.`;

function flowRows(flows: readonly FlowChange[], limit: number): string {
  const rows = [["FROM", "TO", "PORT", "BEFORE", "AFTER", "WHY (AFTER)"]];
  for (const f of flows.slice(0, limit))
    rows.push([f.from, f.to, `${f.port}/${f.protocol}`, f.before, f.after, f.reason]);
  const more = flows.length > limit ? `\n  … ${flows.length - limit} more (--limit or --json)` : "";
  return table(rows).replace(/^/gm, "  ") + more;
}

function workloadRows(changes: readonly WorkloadChange[], limit: number): string {
  const rows = [["CHANGE", "SOURCE", "DESTINATION", "BEFORE", "AFTER", "NOTE"]];
  for (const c of changes.slice(0, limit))
    rows.push([c.change, c.src, c.dst, c.before, c.after, c.info ?? ""]);
  const more = changes.length > limit ? `\n  … ${changes.length - limit} more (--limit or --json)` : "";
  return table(rows).replace(/^/gm, "  ") + more;
}

function endpointRows(eps: readonly EndpointChange[], limit: number): string {
  const rows = [["SERVICE", "PORT", "TRAFFIC", "NODE", "CHANGE", "ENDPOINT"]];
  for (const e of eps.slice(0, limit))
    rows.push([e.service, `${e.port}/${e.protocol}`, e.traffic, e.node, e.change, e.endpoint]);
  const more = eps.length > limit ? `\n  … ${eps.length - limit} more (--limit or --json)` : "";
  return table(rows).replace(/^/gm, "  ") + more;
}

export function formatDiff(d: InputDiff, limit = 50): string {
  const out: string[] = [`${d.summary}.`];
  const p = d.pods;
  const podLines = [
    ...p.added.map((x) => `added ${x}`),
    ...p.removed.map((x) => `removed ${x}`),
    ...p.renamed.map((x) => `renamed ${x.before} -> ${x.after}`),
    ...p.moved.map((x) => `moved ${x.pod} from ${x.from} to ${x.to}`),
  ];
  if (podLines.length) out.push("", "Pods:", ...podLines.map((l) => `  ${l}`));
  const gained = d.flows.filter((f) => f.change === "gained");
  const lost = d.flows.filter((f) => f.change === "lost");
  if (d.workloads.length)
    out.push("", `Workload connections (${d.workloads.length}):`, workloadRows(d.workloads, limit));
  if (lost.length) out.push("", `Flows lost (${lost.length}):`, flowRows(lost, limit));
  if (gained.length) out.push("", `Flows gained (${gained.length}):`, flowRows(gained, limit));
  if (d.endpoints.length)
    out.push(
      "",
      `Endpoints (${d.counts.endpointsVanish} vanish, ${d.counts.endpointsAppear} appear):`,
      endpointRows(d.endpoints, limit),
    );
  for (const t of d.truncated) out.push("", `Note: ${t}`);
  return out.join("\n");
}

/** Markdown for a pull-request comment (GitHub-flavoured tables; names escaped). */
export function formatDiffMarkdown(d: InputDiff, limit = 50): string {
  const out: string[] = [`### ktl diff: ${d.summary}`];
  const more = (n: number) =>
    n > limit ? [``, `… ${n - limit} more (run \`ktl diff --json\` for all)`] : [];
  const flows = (title: string, list: readonly FlowChange[]) => {
    if (!list.length) return;
    out.push("", `**${title} (${list.length})**`, "");
    out.push(
      mdTable(
        ["from", "to", "port", "before", "after", "why (after)"],
        list
          .slice(0, limit)
          .map((f) => [f.from, f.to, `${f.port}/${f.protocol}`, f.before, f.after, f.reason]),
      ),
    );
    out.push(...more(list.length));
  };
  if (d.workloads.length) {
    out.push("", `**Workload connections (${d.workloads.length})**`, "");
    out.push(
      mdTable(
        ["change", "source", "destination", "before", "after", "note"],
        d.workloads.slice(0, limit).map((c) => [c.change, c.src, c.dst, c.before, c.after, c.info ?? ""]),
      ),
    );
    out.push(...more(d.workloads.length));
  }
  flows(
    "Flows lost",
    d.flows.filter((f) => f.change === "lost"),
  );
  flows(
    "Flows gained",
    d.flows.filter((f) => f.change === "gained"),
  );
  if (d.endpoints.length) {
    out.push(
      "",
      `**Endpoints (${d.counts.endpointsVanish} vanish, ${d.counts.endpointsAppear} appear)**`,
      "",
    );
    out.push(
      mdTable(
        ["service", "port", "traffic", "node", "change", "endpoint"],
        d.endpoints
          .slice(0, limit)
          .map((e) => [e.service, `${e.port}/${e.protocol}`, e.traffic, e.node, e.change, e.endpoint]),
      ),
    );
    out.push(...more(d.endpoints.length));
  }
  for (const t of d.truncated) out.push("", `> ${t}`);
  return out.join("\n");
}

const DIFF_FORMATS = ["text", "json", "md"];

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = {
  booleans: ["json", "exit-code"],
  strings: ["limit", "external-ip", "format", "cni", "dir1", "dir2"],
};

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const format = (flagString(args, "format") ?? (isOn(args, "json") ? "json" : "text")).toLowerCase();
  if (!DIFF_FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${DIFF_FORMATS.join(", ")}, not "${format}"`);
  // netpol-analyzer's diff names its inputs --dir1 (before) and --dir2 (after).
  const dir1 = flagString(args, "dir1");
  const dir2 = flagString(args, "dir2");
  if ((dir1 === undefined) !== (dir2 === undefined)) throw new UsageError("--dir1 and --dir2 go together");
  if (dir1 !== undefined && dir2 !== undefined) args.positional.unshift(dir1, dir2);
  if (args.positional.length !== 2)
    throw new UsageError(`needs exactly two inputs, BEFORE and AFTER (got ${args.positional.length})`);
  const [a, b] = args.positional as [string, string];
  if (a === "-" && b === "-") throw new UsageError("only one of BEFORE and AFTER can be standard input");
  const limitText = flagString(args, "limit");
  const limit = limitText === undefined ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a whole number of 1 or more, not "${limitText}"`);
  const external = flagString(args, "external-ip");
  const cni = cniOption(flagString(args, "cni"));
  const before = loadModel(readInputs([a]), cni ? { cni } : {});
  const after = loadModel(readInputs([b]), cni ? { cni } : {});
  for (const m of [before, after])
    reportDiagnostics(
      m.diagnostics.filter((x) => x.severity === "error" || x.code === "KTL201"),
      io,
    );
  // One side may be empty (a new application, a removed one); both empty is nothing to compare.
  if (before.objectsRead === 0) requireObjects(after, "BEFORE and AFTER hold");
  const o = { before: omissionsOf(before), after: omissionsOf(after) };
  // The contract's `skipped` and `replaced`, each entry saying which input it is from.
  const omitted = {
    skipped: [
      ...o.before.skipped.map((s) => ({ ...s, input: "before" })),
      ...o.after.skipped.map((s) => ({ ...s, input: "after" })),
    ],
    replaced: [
      ...o.before.replaced.map((r) => ({ ...r, input: "before" })),
      ...o.after.replaced.map((r) => ({ ...r, input: "after" })),
    ],
  };
  const d = diffModels(before, after, external ? { externalClientIP: external } : {});
  const missed = omissionsHeadline(omitted);
  if (missed && format !== "json") io.out(format === "md" ? `> ${missed}\n` : missed);
  io.out(
    format === "json"
      ? JSON.stringify({ ...d, ...omitted }, null, 2)
      : format === "md"
        ? formatDiffMarkdown(d, limit)
        : formatDiff(d, limit),
  );
  const changed = d.flows.length > 0 || d.workloads.length > 0 || d.endpoints.length > 0;
  return exitFor(omitted, isOn(args, "exit-code") && changed ? 1 : 0);
}
