/**
 * `ktl eval`: netpol-analyzer's `evaluate`, its flags and its one line
 * (`NS/POD => NS/POD over tcp/8080: true`): whether one connection is
 * allowed, as the one decider answers (decide/: every policy layer of the
 * profile), for people and scripts that call netpol-analyzer today.
 */
import { deciderOf, loadModel, type Protocol } from "../../engine/index.ts";
import type { Pod } from "../../engine/model/types.ts";
import { readInputs, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import { reportDiagnostics, requireObjects } from "../report.ts";
import { cniOption } from "./reach.ts";

export const help = `ktl eval -s POD [-n NS] (-d POD [--destination-namespace NS] | --destination-ip IP) -p PORT [--protocol P] INPUT...
       (netpol-analyzer's evaluate; also ktl evaluate)

Whether one connection is allowed, in netpol-analyzer's words:
  default/frontend => default/backend over tcp/8080: true

  -s, --source-pod NAME         the source pod (-n, --source-namespace NS; default "default")
  --source-ip IP                a source outside the cluster instead (needs -d)
  -d, --destination-pod NAME    the destination pod (--destination-namespace NS; default "default")
  --destination-ip IP           a destination outside the cluster instead (needs -s)
  -p, --destination-port PORT   the destination port, a number or the pod's port name
  --protocol P                  tcp (default), udp or sctp
  --cni NAME                    the CNI that enforces policy: generic (default), calico,
                                cilium, cilium-kpr, flannel

Every policy layer of the profile decides (ktl reach and ktl trace give the same
answer; ktl trace shows why). Exit 0 with the answer; 2 bad usage or a pod the
input does not have.`;

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = {
  strings: [
    "source-pod",
    "source-namespace",
    "destination-pod",
    "destination-namespace",
    "source-ip",
    "destination-ip",
    "destination-port",
    "protocol",
    "cni",
  ],
  short: { s: "source-pod", n: "source-namespace", d: "destination-pod", p: "destination-port" },
};

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const get = (k: string) => flagString(args, k);
  const srcPod = get("source-pod");
  const dstPod = get("destination-pod");
  const srcIp = get("source-ip");
  const dstIp = get("destination-ip");
  // netpol-analyzer's own checks (pkg/cli/evaluate.go validateEvalFlags), in its order.
  if (!srcPod && !srcIp) throw new UsageError("a source is required: -s POD (or --source-ip IP)");
  if (srcPod && srcIp) throw new UsageError("only one source: -s POD or --source-ip IP");
  if (!dstPod && !dstIp) throw new UsageError("a destination is required: -d POD (or --destination-ip IP)");
  if (dstPod && dstIp) throw new UsageError("only one destination: -d POD or --destination-ip IP");
  if (srcIp && dstIp) throw new UsageError("one end must be a pod: an IP source needs -d POD");
  const portText = get("destination-port");
  if (!portText) throw new UsageError("the destination port is required: -p PORT");
  const protocolText = (get("protocol") ?? "tcp").toLowerCase();
  if (!["tcp", "udp", "sctp"].includes(protocolText))
    throw new UsageError(`--protocol must be tcp, udp or sctp, not "${get("protocol")}"`);
  const protocol = protocolText.toUpperCase() as Protocol;
  if (!args.positional.length) throw new UsageError("no INPUT given: name the manifests (or --dirpath DIR)");
  const cni = cniOption(get("cni"));
  const model = loadModel(readInputs(args.positional), cni ? { cni } : {});
  reportDiagnostics(model.diagnostics, io, true);
  requireObjects(model);
  const podOf = (name: string, ns: string | undefined): Pod => {
    const key = `${ns ?? "default"}/${name}`;
    const pod = model.pods.find((p) => p.key === key);
    if (!pod) throw new UsageError(`no pod ${key} in the input`);
    return pod;
  };
  const src = srcPod ? podOf(srcPod, get("source-namespace")) : undefined;
  const dst = dstPod ? podOf(dstPod, get("destination-namespace")) : undefined;
  // A named port is the destination pod's (NetworkPolicy and kube-proxy read it there).
  let port: number;
  if (/^\d+$/.test(portText)) port = Number(portText);
  else {
    const named = dst?.ports.find((p) => p.name === portText && p.protocol === protocol);
    if (!named)
      throw new UsageError(
        `port "${portText}" is not a number, and ${dst ? `pod ${dst.key} names no ${protocol} port so` : "an IP has no named port"}`,
      );
    port = named.containerPort;
  }
  if (port < 1 || port > 65535) throw new UsageError(`port ${port} is out of range (1-65535)`);
  const decider = deciderOf(model);
  const allowed =
    src && dst
      ? decider.explain(src, dst, port, protocol).allowed
      : src
        ? decider.egress(src, { ip: dstIp! }, port, protocol)
        : decider.ingress(dst!, { ip: srcIp! }, port, protocol);
  const end = (p: Pod | undefined, ip: string | undefined) => (p ? p.key : ip!);
  io.out(`${end(src, srcIp)} => ${end(dst, dstIp)} over ${protocolText}/${portText}: ${allowed}`);
  return 0;
}
