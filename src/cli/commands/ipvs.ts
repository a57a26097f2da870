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

--ipvs-scheduler NAME: rr (default), lc, dh, sh, sed, nq, ... Options are
those of ktl iptables (ktl help iptables): --node, --from, --to, --protocol, --family, --detect-local-mode, --cluster-cidr,
--pod-bridge-interface, --pod-interface-name-prefix, --masquerade-all,
--nodeport-addresses, --iptables-localhost-nodeports, --iptables-version,
--ipvs-scheduler, --json (-o json); kube-proxy takes its whole configuration
in every mode, so the other modes' flags are accepted.`;

/** Its options, for the parser, help and shell completion (completion.ts). */
export { PROXY_FLAGS as flags } from "./iptables.ts";

export function run(argv: string[], io: Output): number {
  return runMode("ipvs", argv, io, help);
}
