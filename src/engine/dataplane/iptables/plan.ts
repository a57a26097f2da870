/**
 * The chain choices at the top of syncProxyRules' per-service loop
 * (pkg/proxy/iptables/proxier.go; the nftables proxier makes the same ones):
 * which policy chains a Service port uses on this node, where internal and
 * external traffic go, and the REJECT/DROP filter rules when they have no
 * endpoint. servicePort.ts writes the rules; the nftables printer reads the
 * same plan.
 */
import type { DataplaneServicePort } from "../types.ts";
import {
  serviceClusterChain,
  serviceExternalChain,
  serviceFirewallChain,
  serviceLocalChain,
  servicePortNameString,
} from "../names.ts";

/**
 * UsesClusterEndpoints / UsesLocalEndpoints (pkg/proxy/serviceport.go): a port
 * that accepts external traffic at all needs the Cluster endpoints, even with
 * externalTrafficPolicy Local, for the short-circuit of pod and node traffic.
 */
export function usesClusterEndpoints(s: DataplaneServicePort): boolean {
  return !s.internalPolicyLocal || s.externallyAccessible;
}
export function usesLocalEndpoints(s: DataplaneServicePort): boolean {
  return s.internalPolicyLocal || (s.externallyAccessible && s.externalPolicyLocal);
}

/** Which chains and filter verdicts syncProxyRules derives for one Service port on this node. */
export interface ServicePortPlan {
  spn: string;
  protocol: string;
  clusterPolicyChain: string;
  localPolicyChain: string;
  externalChain: string;
  firewallChain: string;
  usesClusterPolicyChain: boolean;
  usesLocalPolicyChain: boolean;
  internalTrafficChain: string;
  hasInternalEndpoints: boolean;
  externalPolicyChain: string;
  hasExternalEndpoints: boolean;
  usesExternalTrafficChain: boolean;
  usesFWChain: boolean;
  loadBalancerTrafficChain: string;
  internalFilter?: { target: "REJECT" | "DROP"; comment: string };
  externalFilter?: { target: "REJECT" | "DROP"; comment: string };
}

/** The chain choices at the top of syncProxyRules' per-service loop, shared by the iptables walk and the nftables printer. */
export function planServicePort(s: DataplaneServicePort): ServicePortPlan {
  const spn = servicePortNameString(s.namespace, s.name, s.portName);
  const protocol = s.protocol.toLowerCase();
  const clusterPolicyChain = serviceClusterChain(spn, protocol);
  const localPolicyChain = serviceLocalChain(spn, protocol);
  const externalChain = serviceExternalChain(spn, protocol);
  const firewallChain = serviceFirewallChain(spn, protocol);
  const usesClusterPolicyChain = s.clusterEndpoints.length > 0 && usesClusterEndpoints(s);
  const usesLocalPolicyChain = s.localEndpoints.length > 0 && usesLocalEndpoints(s);

  let internalPolicyChain = clusterPolicyChain;
  let hasInternalEndpoints = s.hasEndpoints;
  if (s.internalPolicyLocal) {
    internalPolicyChain = localPolicyChain;
    if (s.localEndpoints.length === 0) hasInternalEndpoints = false;
  }
  let externalPolicyChain = clusterPolicyChain;
  let hasExternalEndpoints = s.hasEndpoints;
  if (s.externalPolicyLocal) {
    externalPolicyChain = localPolicyChain;
    if (s.localEndpoints.length === 0) hasExternalEndpoints = false;
  }
  const usesExternalTrafficChain = s.hasEndpoints && s.externallyAccessible;
  const usesFWChain =
    s.hasEndpoints && s.loadBalancerVIPs.length > 0 && s.loadBalancerSourceRanges.length > 0;

  const plan: ServicePortPlan = {
    spn,
    protocol,
    clusterPolicyChain,
    localPolicyChain,
    externalChain,
    firewallChain,
    usesClusterPolicyChain,
    usesLocalPolicyChain,
    internalTrafficChain: internalPolicyChain,
    hasInternalEndpoints,
    externalPolicyChain,
    hasExternalEndpoints,
    usesExternalTrafficChain,
    usesFWChain,
    loadBalancerTrafficChain: usesFWChain ? firewallChain : externalChain,
  };
  if (!s.hasEndpoints) {
    plan.internalFilter = { target: "REJECT", comment: `${spn} has no endpoints` };
    plan.externalFilter = plan.internalFilter;
  } else {
    if (!hasInternalEndpoints)
      plan.internalFilter = { target: "DROP", comment: `${spn} has no local endpoints` };
    if (!hasExternalEndpoints)
      plan.externalFilter = { target: "DROP", comment: `${spn} has no local endpoints` };
  }
  return plan;
}
