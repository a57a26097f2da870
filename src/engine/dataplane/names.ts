/**
 * Chain, set and comment names exactly as kube-proxy 1.35 derives them.
 *
 * iptables mode (pkg/proxy/iptables/proxier.go): portProtoHash is the first 16
 * characters of base32(sha256(servicePortName + protocol)); the endpoint chain
 * hashes servicePortName + protocol + endpoint ("ip:port", "[ip6]:port").
 * nftables mode (pkg/proxy/nftables/proxier.go): hashAndTruncate prefixes a
 * readable name with 8 characters of the same hash.
 */
import { base32, sha256, utf8Bytes } from "./hash.ts";

/** proxy.ServicePortName.String(): "namespace/name:port", or "namespace/name" for an unnamed port. */
export function servicePortNameString(namespace: string, name: string, portName: string): string {
  return portName ? `${namespace}/${name}:${portName}` : `${namespace}/${name}`;
}

/** BaseEndpointInfo.String(): net.JoinHostPort(ip, port). */
export function endpointString(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function hash(text: string): string {
  return base32(sha256(utf8Bytes(text)));
}

/** portProtoHash (iptables/proxier.go). `protocol` is lower case: tcp, udp, sctp. */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash(servicePortName + protocol).slice(0, 16);
}

/** servicePortPolicyClusterChain: KUBE-SVC-XXXX, endpoints for Cluster traffic policy. */
export const serviceClusterChain = (spn: string, protocol: string): string =>
  `KUBE-SVC-${portProtoHash(spn, protocol)}`;
/** servicePortPolicyLocalChainName: KUBE-SVL-XXXX, endpoints for Local traffic policy. */
export const serviceLocalChain = (spn: string, protocol: string): string =>
  `KUBE-SVL-${portProtoHash(spn, protocol)}`;
/** serviceFirewallChainName: KUBE-FW-XXXX, loadBalancerSourceRanges. */
export const serviceFirewallChain = (spn: string, protocol: string): string =>
  `KUBE-FW-${portProtoHash(spn, protocol)}`;
/** serviceExternalChainName: KUBE-EXT-XXXX, NodePort, external IP and load-balancer traffic. */
export const serviceExternalChain = (spn: string, protocol: string): string =>
  `KUBE-EXT-${portProtoHash(spn, protocol)}`;

/** servicePortEndpointChainName: KUBE-SEP-XXXX for one endpoint ("ip:port"). */
export function serviceEndpointChain(spn: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${hash(spn + protocol + endpoint).slice(0, 16)}`;
}

/** knftables.NameLengthMax minus chainNamePrefixLengthMax (nftables/proxier.go). */
const NFT_CHAIN_NAME_BASE_MAX = 256 - 16;

/** hashAndTruncate (nftables/proxier.go). */
function hashAndTruncate(name: string): string {
  const out = `${hash(name).slice(0, 8)}-${name}`;
  return out.length > NFT_CHAIN_NAME_BASE_MAX ? `${out.slice(0, NFT_CHAIN_NAME_BASE_MAX - 3)}...` : out;
}

/** servicePortChainNameBase: "HASH-namespace/name/protocol/portName". */
export function nftServiceBase(namespace: string, name: string, protocol: string, portName: string): string {
  return hashAndTruncate(`${namespace}/${name}/${protocol}/${portName}`);
}

/** servicePortEndpointChainNameBase: "HASH-namespace/name/protocol/portName__ip/port" (IPv6 colons become dots). */
export function nftEndpointBase(
  namespace: string,
  name: string,
  protocol: string,
  portName: string,
  ip: string,
  port: number,
): string {
  return hashAndTruncate(`${namespace}/${name}/${protocol}/${portName}__${ip.replaceAll(":", ".")}/${port}`);
}
