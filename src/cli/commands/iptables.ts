/** `ktl iptables`: what iptables-save prints for kube-proxy's rules on one node (and, with --from/--to, the rules a request walks). */
import {
  buildProxyIndex,
  dataplaneOptions,
  loadModel,
  nodeRules,
  traceRequest,
  walkTrace,
  type DataplaneOptions,
  type Model,
  type ProxyMode,
  type TraceRuleWalk,
} from "../../engine/index.ts";
import { readInputs, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type ParsedArgs } from "../args.ts";
import { exitFor, omissionsOf, reportDiagnostics, requireObjects } from "../report.ts";
import { parsePortProtocol } from "./reach.ts";

export const help = `ktl iptables --node NAME [--from SRC --to DST] [options] INPUT...

What \`iptables-save\` prints on node NAME for the filter and nat rules that
kube-proxy v1.35 writes in iptables mode: KUBE-SERVICES, KUBE-SVC-*,
KUBE-SVL-*, KUBE-EXT-*, KUBE-FW-*, KUBE-SEP-*, KUBE-NODEPORTS,
KUBE-MARK-MASQ, KUBE-POSTROUTING, and the filter chains with their REJECT
("has no endpoints") and DROP ("has no local endpoints") rules. Chain names
are kube-proxy's hashes, endpoints in kube-proxy's order, --probability as
iptables-save prints back the kernel's 32-bit value (iptables 1.8.7 format).

With --from and --to (ktl trace syntax), also lists the rules the request's
first packet walks on the node that handles it, in order, one branch per
backend with its chance.

Options (kube-proxy's flags; a KubeProxyConfiguration or the kube-system/
kube-proxy ConfigMap in the input is read too):
  --node NAME                     the node (required)
  --from SRC --to DST             a request to walk through the rules
  --protocol TCP|UDP|SCTP         the request's protocol (default TCP)
  --family IPv4|IPv6              ip6tables-save for IPv6 (default IPv4)
  --detect-local-mode MODE        ClusterCIDR (default), NodeCIDR,
                                  BridgeInterface, InterfaceNamePrefix
  --cluster-cidr CIDR             for ClusterCIDR (default: the pods' range)
  --pod-bridge-interface NAME     for BridgeInterface
  --pod-interface-name-prefix P   for InterfaceNamePrefix (AKS: azv)
  --masquerade-all                SNAT all traffic sent to ClusterIPs
  --nodeport-addresses CIDRS      comma-separated; default every local address
  --iptables-localhost-nodeports=false
  --iptables-version V            iptables-save format, 1.8.7 (default) or later
  --ipvs-scheduler NAME           read by ktl ipvs; accepted here, as kube-proxy
                                  takes its whole configuration in every mode
  --json                          {node, mode, config, notes, text, lines[, walk]}`;

/** Reads the kube-proxy settings shared by ktl iptables, nft and ipvs. */
export function proxyOptions(args: ParsedArgs, model: Model): DataplaneOptions {
  const o: DataplaneOptions = {};
  const family = flagString(args, "family");
  if (family) {
    const f = family.toLowerCase();
    if (f !== "ipv4" && f !== "ipv6") throw new UsageError(`--family must be IPv4 or IPv6, not "${family}"`);
    o.family = f === "ipv4" ? "IPv4" : "IPv6";
  }
  const dlm = flagString(args, "detect-local-mode");
  if (dlm) {
    if (
      dlm !== "ClusterCIDR" &&
      dlm !== "NodeCIDR" &&
      dlm !== "BridgeInterface" &&
      dlm !== "InterfaceNamePrefix"
    ) {
      throw new UsageError(
        `--detect-local-mode must be ClusterCIDR, NodeCIDR, BridgeInterface or InterfaceNamePrefix, not "${dlm}"`,
      );
    }
    o.detectLocalMode = dlm;
  }
  const cidr = flagString(args, "cluster-cidr");
  if (cidr) o.clusterCIDR = cidr;
  const bridge = flagString(args, "pod-bridge-interface");
  if (bridge) {
    o.bridgeInterface = bridge;
    o.detectLocalMode ??= "BridgeInterface";
  }
  const prefix = flagString(args, "pod-interface-name-prefix");
  if (prefix) {
    o.interfaceNamePrefix = prefix;
    o.detectLocalMode ??= "InterfaceNamePrefix";
  }
  const ma = args.flags.get("masquerade-all");
  if (ma !== undefined) o.masqueradeAll = ma === true || ma === "true";
  const npa = flagString(args, "nodeport-addresses");
  if (npa)
    o.nodePortAddresses = npa
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  const lnp = flagString(args, "iptables-localhost-nodeports");
  if (lnp !== undefined) o.localhostNodePorts = lnp !== "false";
  const sched = flagString(args, "ipvs-scheduler");
  if (sched) o.ipvsScheduler = sched;
  const ver = flagString(args, "iptables-version");
  if (ver) o.iptablesVersion = ver;
  return dataplaneOptions(model, o);
}

/** The flags of ktl iptables, nft and ipvs. */
export const PROXY_FLAGS = {
  booleans: ["json", "masquerade-all"],
  strings: [
    "node",
    "from",
    "to",
    "protocol",
    "family",
    "detect-local-mode",
    "cluster-cidr",
    "pod-bridge-interface",
    "pod-interface-name-prefix",
    "nodeport-addresses",
    "iptables-localhost-nodeports",
    "ipvs-scheduler",
    "iptables-version",
  ],
};

/** Shared driver of ktl iptables / nft / ipvs. */
export function runMode(mode: ProxyMode, argv: string[], io: Output, helpText: string): number {
  const args = parseArgs(argv, PROXY_FLAGS);
  if (isOn(args, "help")) {
    io.out(helpText);
    return 0;
  }
  const node = flagString(args, "node");
  if (!node) throw new UsageError("--node NAME is required: which node's rules to print");
  const files = readInputs(args.positional);
  const model = loadModel(files);
  const json = isOn(args, "json");
  reportDiagnostics(model.diagnostics, io, true);
  requireObjects(model);
  const omitted = omissionsOf(model);
  const options = proxyOptions(args, model);
  const index = buildProxyIndex(model);
  const rules = nodeRules(model, index, node, mode, options);
  if (rules.error) throw new UsageError(rules.error);
  let walk: TraceRuleWalk | undefined;
  const from = flagString(args, "from");
  const to = flagString(args, "to");
  if (from || to) {
    if (!from || !to) throw new UsageError("--from and --to go together");
    const { protocol } = parsePortProtocol(undefined, flagString(args, "protocol"));
    const trace = traceRequest(model, index, from, to, protocol);
    if (trace.error) throw new UsageError(trace.error);
    walk = walkTrace(model, rules, trace);
  }
  if (json) {
    const out: Record<string, unknown> = {
      node: rules.node,
      mode: rules.mode,
      family: rules.family,
      config: rules.config,
      notes: rules.notes,
      text: rules.text,
      lines: rules.lines,
    };
    if (rules.deprecated) out.deprecated = rules.deprecated;
    if (walk) out.walk = walk;
    Object.assign(out, omitted);
    io.out(JSON.stringify(out));
    return exitFor(omitted);
  }
  if (rules.deprecated) io.err(`ktl: note: ${rules.deprecated}`);
  // The rules are printed as kube-proxy writes them (no headline line): the unreadable documents are on stderr, and the exit code says so.
  io.out(rules.text.replace(/\n$/, ""));
  if (walk) printWalk(walk, io);
  return exitFor(omitted);
}

function printWalk(w: TraceRuleWalk, io: Output): void {
  io.out("");
  io.out(`# Rules walked on ${w.node}: ${w.note}`);
  if (!w.packet) return;
  const p = w.packet;
  io.out(
    `# packet ${p.src} -> ${p.dst}:${p.dport}/${p.protocol}${p.fromHost ? " from the node's host network (OUTPUT)" : ` arriving on ${p.inIface ?? "?"} (PREROUTING)`}`,
  );
  w.branches.forEach((b, i) => {
    const chance = `${(b.probability * 100).toFixed(b.probability === 1 ? 0 : 2)}%`;
    io.out(
      `# branch ${i + 1} (${chance}): ${b.endpoint ? `DNAT to ${b.endpoint}` : "no DNAT"}, ${b.verdict.toUpperCase()}${b.masquerade ? ", masqueraded" : ""}`,
    );
    for (const s of b.steps)
      io.out(`#   ${String(s.lineIndex + 1).padStart(4)}  ${s.table.padEnd(6)} ${s.line}`);
  });
}

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags = PROXY_FLAGS;

export function run(argv: string[], io: Output): number {
  return runMode("iptables", argv, io, help);
}
