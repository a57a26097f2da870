/** `ktl nft`: what `nft list table ip kube-proxy` prints on one node in kube-proxy's nftables mode. */
import type { Output } from "../io.ts";
import { runMode } from "./iptables.ts";

export const help = `ktl nft --node NAME [--from SRC --to DST] [options] INPUT...

What \`nft list table ip kube-proxy\` (ip6 with --family IPv6) prints on node
NAME when kube-proxy v1.35 runs in nftables mode: the service-ips,
service-nodeports, no-endpoint-services, no-endpoint-nodeports and
firewall-ips verdict maps, the cluster-ips set, and the service-, local-,
external-, firewall- and endpoint- chains with their numgen load balancing.

With --from and --to (ktl trace syntax), also lists the rules and
verdict-map elements the request's first packet walks, hook by hook, one
branch per endpoint numgen may pick, with its chance.

Options are those of ktl iptables (ktl help iptables): --node,
--from, --to, --protocol, --family, --detect-local-mode, --cluster-cidr,
--pod-bridge-interface, --pod-interface-name-prefix, --masquerade-all,
--nodeport-addresses, --iptables-localhost-nodeports, --iptables-version,
--ipvs-scheduler, --json (-o json); kube-proxy takes its whole configuration
in every mode, so the other modes' flags are accepted.`;

/** Its options, for the parser, help and shell completion (completion.ts). */
export { PROXY_FLAGS as flags } from "./iptables.ts";

export function run(argv: string[], io: Output): number {
  return runMode("nftables", argv, io, help);
}
