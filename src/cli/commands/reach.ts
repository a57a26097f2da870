/** `ktl reach`: pod-to-pod reachability under every NetworkPolicy, for one port and protocol. */
import {
  deciderOf,
  loadModel,
  unmodelledFor,
  unmodelledHeadline,
  type Protocol,
} from "../../engine/index.ts";
import { parseCniName, type CniName } from "../../engine/cni/profile.ts";
import { readInputs, table, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import { exitFor, omissionsHeadline, omissionsOf, reportDiagnostics, requireObjects } from "../report.ts";

export const help = `ktl reach [--port N] [--protocol TCP|UDP|SCTP] [--summary] [--json] INPUT...

Pod-to-pod reachability under every policy layer in the input (the Admin
tier, NetworkPolicy, the Baseline tier), for one destination port (default
80) and protocol (default TCP), by pod IP (no Service involved). Follows
upstream Kubernetes: a pod's traffic to its own IP is judged by
NetworkPolicy like any other pair (the cluster-scoped tiers do not apply to
it); ipBlock rules match pod IPs. A policy object or field that ktl does not
evaluate is named on the first line (and in "unmodelled" with --json); so is
a document that could not be read ("skipped"), and ktl then exits 1: the
answer misses it. A later object with the kind, namespace and name of an
earlier one replaces it, as kubectl apply does ("replaced"). An input with
no Kubernetes object exits 2.

  --port N    the destination port (default 80)
  --protocol  TCP (default), UDP or SCTP
  --summary   counts instead of the matrix (for large clusters)
  --cni NAME  the CNI that enforces policy: generic (default), calico,
              cilium, cilium-kpr, flannel (read from a cilium-config or
              calico-config ConfigMap in the input when not given)
  --json      machine-readable output (see the ktl CLI contract); also -o json
              or --format json`;

export function cniOption(text: string | undefined): CniName | undefined {
  if (text === undefined) return undefined;
  const c = parseCniName(text);
  if (typeof c === "object") throw new UsageError(`--cni: ${c.error}`);
  return c;
}

/** The most pods `ktl reach` prints a matrix for (9 million pairs); --summary has no limit. */
export const MAX_MATRIX_PODS = 3000;

export function parsePortProtocol(
  port: string | undefined,
  protocol: string | undefined,
): { port: number; protocol: Protocol } {
  const p = port === undefined ? 80 : Number(port);
  if (!Number.isInteger(p) || p < 1 || p > 65535)
    throw new UsageError(`--port must be a number from 1 to 65535, not "${port}"`);
  const proto = (protocol ?? "TCP").toUpperCase();
  if (proto !== "TCP" && proto !== "UDP" && proto !== "SCTP")
    throw new UsageError(`--protocol must be TCP, UDP or SCTP, not "${protocol}"`);
  return { port: p, protocol: proto };
}

function printMatrix(
  pods: string[],
  allowed: boolean[][],
  port: number,
  protocol: Protocol,
  io: Output,
): void {
  io.out(`Reachability for ${protocol}/${port} (rows: from, columns: to; . allowed, X denied)`);
  const rows = [["", ...pods.map((_, i) => String(i + 1))]];
  pods.forEach((p, i) => rows.push([`${i + 1} ${p}`, ...allowed[i]!.map((a) => (a ? "." : "X"))]));
  io.out(table(rows));
}

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = { booleans: ["json", "summary"], strings: ["port", "protocol", "cni"] };

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const { port, protocol } = parsePortProtocol(flagString(args, "port"), flagString(args, "protocol"));
  const cni = cniOption(flagString(args, "cni"));
  const model = loadModel(readInputs(args.positional), cni ? { cni } : {});
  const json = isOn(args, "json");
  reportDiagnostics(model.diagnostics, io, json);
  requireObjects(model);
  const omitted = omissionsOf(model);
  // A pod-by-pod matrix grows with the square of the pods: past MAX_MATRIX_PODS it is refused, not printed out of memory.
  if (!isOn(args, "summary") && model.pods.length > MAX_MATRIX_PODS) {
    throw new UsageError(
      `${model.pods.length} pods make a matrix of ${model.pods.length ** 2} pairs, more than ktl prints (at most ${MAX_MATRIX_PODS} pods); use --summary for the counts`,
    );
  }
  // The one decider (engine/decide): the profile, the CNI dialects and the tiers are its choice, not this command's.
  const decider = deciderOf(model);
  const m = decider.matrix(port, protocol);
  const unmodelled = unmodelledFor(model, "pod");
  const headline = unmodelledHeadline(unmodelled);
  if (!json) {
    if (headline) io.out(headline);
    const missed = omissionsHeadline(omitted);
    if (missed) io.out(missed);
    if (decider.enforcement.kind === "none") io.out(`Nothing is enforced: ${decider.enforcement.why}`);
    else if (decider.enforcement.kind === "cni") io.out(`Judged by ${decider.judgedBy}`);
  }
  if (isOn(args, "summary")) {
    const s = m.summary();
    if (json) io.out(JSON.stringify({ ...s, unmodelled, ...omitted }));
    else {
      io.out(`${s.pods} pods in ${s.classes} equivalence classes, ${protocol}/${port}`);
      io.out(`allowed pairs: ${s.allowedPairs} of ${s.pods * s.pods}`);
      io.out(`isolated for ingress: ${s.isolatedIngress}, for egress: ${s.isolatedEgress}`);
    }
    return exitFor(omitted);
  }
  const pods = model.pods.map((p) => p.key);
  const allowed = m.podMatrix();
  if (json) {
    io.out(JSON.stringify({ port, protocol, pods, allowed, unmodelled, ...omitted }));
    return exitFor(omitted);
  }
  printMatrix(pods, allowed, port, protocol, io);
  return exitFor(omitted);
}
