/** `ktl observe`: observed flows (Hubble, Calico, CSV) against what the input predicts; policies written from them. */
import {
  analyzeObserved,
  buildModel,
  DISAGREEMENTS,
  parseFlows,
  parseManifests,
  suggestPolicies,
  suggestProofLines,
  unmodelledFor,
  unmodelledHeadline,
  type ObserveReport,
  type ObservedRow,
  type SuggestResult,
} from "../../engine/index.ts";
import { statSync } from "node:fs";
import { readInputs, table, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import { oneLine, reportDiagnostics } from "../report.ts";
import { cniOption } from "./reach.ts";

export const help = `ktl observe [--json] [--cni NAME] [--suggest] FLOWS INPUT...

Observed flows beside what the input predicts. FLOWS is one file (or - for
standard input) of:
  - Hubble flows, \`hubble observe -o json\` (one flow a line, bare or as
    {"flow": ...}): source/destination pod, labels and workloads, IP, l4 port,
    verdict FORWARDED or DROPPED, traffic_direction, is_reply;
  - Calico flow logs (JSON lines): source_name/_aggr, source_namespace,
    dest_*, dest_port, proto, action allow|deny, reporter, num_flows;
  - a CSV: source,destination,port,protocol,verdict,count, each end NS/POD,
    NS/WORKLOAD, NS/KIND/NAME, an IP address or service:NS/NAME.
Each flow is matched to the input's pods and workloads (by name, name prefix,
labels, then IP); replies, L7 and ICMP records are skipped, and every record
that matches nothing is listed. Matched flows are compared per source
workload, destination workload (or Service), port and protocol with the
engine's answer, in four cases: agree-allowed, agree-dropped,
observed-forwarded-but-predicted-dropped, observed-dropped-but-predicted-allowed.
A disagreement comes with its likely cause, tested as a what-if by the engine
(a default deny added, the deciding policy taken out, nothing enforced).

  --suggest   print least-privilege policies written from the observed
              allowed flows, in the profile's dialect (NetworkPolicy;
              CiliumNetworkPolicy under cilium and cilium-kpr; Calico's
              projectcalico.org/v3 NetworkPolicy under calico), as YAML on
              standard output, and their proof as
              comments: the input plus the policies still allows every
              observed forwarded flow and drops every observed drop; anything
              else they allow on the ports involved is listed
  --cni NAME  the CNI that enforces policy: generic (default), calico,
              cilium, cilium-kpr, flannel
  --json      machine-readable output; also -o json

Exit codes: 0 every row agrees (with --suggest: the proof holds), 1 some
disagree (with --suggest: the proof fails), 2 bad usage or an unreadable flow
record (its file and line on standard error).`;

const CASE_WORDS: Record<ObservedRow["case"], string> = {
  "agree-allowed": "agree: allowed",
  "agree-dropped": "agree: dropped",
  "observed-forwarded-but-predicted-dropped": "DISAGREE: seen forwarded, predicted dropped",
  "observed-dropped-but-predicted-allowed": "DISAGREE: seen dropped, predicted allowed",
  partial: "partial: backends differ",
};

function decided(row: ObservedRow): string {
  const by = row.decidedBy;
  if (!by) return "-";
  const obj = by.kind ? `${by.kind} ${by.namespace ? `${by.namespace}/` : ""}${by.name ?? ""}` : by.layer;
  return `${obj}${by.line ? `:${by.line}` : ""}`;
}

function printReport(r: ObserveReport, headline: string | undefined, io: Output): void {
  if (headline) io.out(headline);
  const formats = Object.entries(r.formats)
    .map(([f, n]) => `${f} ${n}`)
    .join(", ");
  const skipped = r.skippedFlows.reduce((a, s) => a + s.records, 0);
  io.out(
    `${r.records} flow records${formats ? ` (${formats})` : ""}: ${r.matched} matched, ${r.records - r.matched} unmatched; ${skipped} skipped. Predicted by ${r.judgedBy}.`,
  );
  if (r.flows.length) {
    const rows = [["case", "source -> destination", "port", "seen fwd/drop", "predicted", "decided by"]];
    for (const f of r.flows)
      rows.push([
        CASE_WORDS[f.case],
        `${f.src} -> ${f.dst}`,
        `${f.protocol}/${f.port}`,
        `${f.observed.forwarded}/${f.observed.dropped}`,
        f.predicted,
        decided(f),
      ]);
    io.out("");
    io.out(table(rows));
  }
  const why = r.flows.filter((f) => f.explanation);
  if (why.length) {
    io.out("");
    io.out("Why they disagree:");
    for (const f of why)
      io.out(`  ${oneLine(`${f.src} -> ${f.dst} ${f.protocol}/${f.port}: ${f.explanation}`)}`);
  }
  if (r.unmatched.length) {
    io.out("");
    io.out(`Not matched to the input (${r.unmatched.reduce((a, u) => a + u.records, 0)} records):`);
    for (const u of r.unmatched)
      io.out(
        `  ${oneLine(`${u.src} -> ${u.dst} ${u.protocol}/${u.port} ${u.verdict} x${u.count} (${u.first.file}:${u.first.line}${u.records > 1 ? ` and ${u.records - 1} more` : ""}): ${u.reason}`)}`,
      );
  }
  if (r.skippedFlows.length) {
    io.out("");
    io.out("Skipped:");
    for (const s of r.skippedFlows)
      io.out(`  ${s.records} x ${s.reason} (${s.first.file}:${s.first.line}${s.records > 1 ? ", ..." : ""})`);
  }
  io.out("");
  io.out(
    r.disagreements === 0
      ? `Every matched flow agrees with the input.`
      : `${r.disagreements} of ${r.flows.length} rows disagree with the input.`,
  );
}

/** The proof as YAML comments after the policies, so the output can go to kubectl apply as it is. */
function printSuggestion(s: SuggestResult, r: ObserveReport, io: Output): void {
  if (s.yaml) io.out(s.yaml.trimEnd());
  // The proof as YAML comments: the same lines the playground shows (suggestProofLines).
  if (!s.yaml)
    io.out("# No policy written: no observed forwarded flow between workloads that a policy can select.");
  io.out("#");
  for (const line of suggestProofLines(s, r.judgedBy)) io.out(`# ${line}`.trimEnd());
}

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = { booleans: ["json", "suggest"], strings: ["cni"] };

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const [flowsPath, ...inputs] = args.positional;
  if (!flowsPath)
    throw new UsageError(
      "no FLOWS given: name a flow file (Hubble JSON, Calico flow logs or CSV), then the INPUT",
    );
  if (inputs.length === 0)
    throw new UsageError("no INPUT given after FLOWS: name the manifests to compare with");
  if (flowsPath === "-" && inputs.includes("-"))
    throw new UsageError("FLOWS and an INPUT cannot both be standard input");
  if (flowsPath !== "-") {
    let dir = false;
    try {
      dir = statSync(flowsPath).isDirectory();
    } catch {
      // readInputs says why it cannot be read.
    }
    if (dir) throw new UsageError(`${flowsPath}: FLOWS is one file, not a directory`);
  }
  const cni = cniOption(flagString(args, "cni"));
  const json = isOn(args, "json");
  const flows = parseFlows(readInputs([flowsPath]));
  if (flows.errors.length) {
    for (const e of flows.errors.slice(0, 20)) io.err(`${e.file}:${e.line}: ${e.message}`);
    if (flows.errors.length > 20) io.err(`... and ${flows.errors.length - 20} more unreadable flow records`);
    return 2;
  }
  const parsed = parseManifests(readInputs(inputs));
  const options = cni ? { cni } : {};
  const model = buildModel(parsed, options);
  reportDiagnostics(model.diagnostics, io, json);
  if (model.objects.length === 0) throw new UsageError("the INPUT holds no Kubernetes object");
  const analysis = analyzeObserved({ parsed, options, model }, flows);
  const report = analysis.report;
  const unmodelled = unmodelledFor(model, "all");
  if (isOn(args, "suggest")) {
    const s = suggestPolicies({ parsed, options, model }, analysis);
    if (json) io.out(JSON.stringify({ ...report, suggest: s, unmodelled }, null, 2));
    else printSuggestion(s, report, io);
    return s.proof.holds ? 0 : 1;
  }
  if (json) io.out(JSON.stringify({ ...report, unmodelled }, null, 2));
  else printReport(report, unmodelledHeadline(unmodelled), io);
  return report.flows.some((f) => DISAGREEMENTS.has(f.case)) ? 1 : 0;
}
