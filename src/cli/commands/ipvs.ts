/** `ktl ipvs`: what `ipvsadm -Ln` prints on one node in kube-proxy's IPVS mode. */
import type { Output } from "../io.ts";
import { runMode } from "./iptables.ts";

export const help = `ktl ipvs --node NAME [--ipvs-scheduler NAME] [--from SRC --to DST] [options] INPUT...

What \`ipvsadm -Ln\` prints on node NAME when kube-proxy v1.35 runs in IPVS
mode: one virtual server per ClusterIP, external IP, load-balancer IP and
NodePort (on each node address), its real servers (the endpoints of
internalTrafficPolicy or externalTrafficPolicy), the scheduler from the proxy
configuration (ipvs.scheduler, rr by default) and "persistent" for ClientIP
session affinity.

With --from and --to (ktl trace syntax), also names the virtual server the
request's first packet meets and each real server the scheduler may pick,
with its share; a virtual server without real servers rejects (ICMP port
unreachable, ip_vs_leave).

Options are those of ktl iptables, plus --ipvs-scheduler (rr, lc, dh, sh,
sed, nq, ...).`;

export function run(argv: string[], io: Output): number {
  return runMode("ipvs", argv, io, help);
}
