/**
 * Random clusters for the policy stack's property tests (policy/stack.test.ts,
 * analysis/tiers.test.ts): NetworkPolicies, ClusterNetworkPolicies of both
 * tiers (v1alpha2) and AdminNetworkPolicy / BaselineAdminNetworkPolicy
 * (v1alpha1), with every action, peer kind and port form, host-network pods,
 * StatefulSet replicas (a per-pod label that a selector reads or not), from
 * a seed.
 */
import { rng } from "../testing/random.ts";

type R = ReturnType<typeof rng>;

const APPS = ["a", "b", "c"];
const PORTS = [
  "{name: http, containerPort: 80}",
  "{name: http, containerPort: 8080}",
  "{name: dns, containerPort: 53, protocol: UDP}",
];

const podSel = (r: R) =>
  r.pick([
    "{}",
    `{matchLabels: {app: ${r.pick(APPS)}}}`,
    `{matchExpressions: [{key: app, operator: NotIn, values: [${r.pick(APPS)}]}]}`,
  ]);
const nsSel = (r: R) =>
  r.pick([
    "{}",
    `{matchLabels: {team: t${r.int(2)}}}`,
    `{matchLabels: {kubernetes.io/metadata.name: ns${r.int(3)}}}`,
  ]);

function tierPeer(r: R, egress: boolean): string {
  switch (r.int(egress ? 6 : 3)) {
    case 0:
      return `{namespaces: ${nsSel(r)}}`;
    case 1:
      return `{pods: {namespaceSelector: ${nsSel(r)}, podSelector: ${podSel(r)}}}`;
    case 2:
      return r.int(4) === 0 ? "{}" : `{namespaces: ${nsSel(r)}}`;
    case 3:
      return `{networks: [${r.pick(["10.1.0.0/16", "10.1.1.0/24", "0.0.0.0/0", "192.168.1.10/32"])}]}`;
    case 4:
      return `{nodes: ${r.pick(["{}", "{matchLabels: {zone: z0}}"])}}`;
    default:
      return `{networks: [10.2.0.0/16]}`;
  }
}

function cnpPorts(r: R): string {
  const one = () =>
    r.pick([
      `{tcp: {destinationPort: {number: ${r.pick([80, 8080])}}}}`,
      `{tcp: {destinationPort: {range: {start: 70, end: 85}}}}`,
      `{udp: {destinationPort: {number: 53}}}`,
      `{destinationNamedPort: http}`,
      `{sctp: {destinationPort: {number: 80}}}`,
    ]);
  return `[${Array.from({ length: 1 + r.int(2) }, one).join(", ")}]`;
}

function anpPorts(r: R): string {
  const one = () =>
    r.pick([
      `{portNumber: {protocol: TCP, port: ${r.pick([80, 8080])}}}`,
      `{portRange: {protocol: TCP, start: 70, end: 85}}`,
      `{portNumber: {protocol: UDP, port: 53}}`,
      `{namedPort: http}`,
    ]);
  return `[${Array.from({ length: 1 + r.int(2) }, one).join(", ")}]`;
}

function tierRules(r: R, egress: boolean, v1alpha1: boolean, actions: string[]): string {
  const out: string[] = [];
  for (let i = r.int(4); i >= 0; i--) {
    const peers = Array.from({ length: 1 + r.int(2) }, () => tierPeer(r, egress)).filter(
      (p) => !(v1alpha1 && !egress && p.startsWith("{networks")),
    );
    // Named ports with networks/nodes peers are rejected by the CRD's CEL rule: keep them apart.
    const ipPeers = peers.some((p) => p.startsWith("{networks") || p.startsWith("{nodes"));
    let ports = r.int(2) === 0 ? (v1alpha1 ? anpPorts(r) : cnpPorts(r)) : "";
    if (ipPeers && /named|Named/.test(ports)) ports = "";
    const key = egress ? "to" : "from";
    const portKey = v1alpha1 ? "ports" : "protocols";
    out.push(
      `{name: r${i}, action: ${r.pick(actions)}, ${key}: [${peers.join(", ")}]${ports ? `, ${portKey}: ${ports}` : ""}}`,
    );
  }
  return `[${out.join(", ")}]`;
}

function subject(r: R): string {
  return r.int(2) === 0
    ? `{namespaces: ${nsSel(r)}}`
    : `{pods: {namespaceSelector: ${nsSel(r)}, podSelector: ${podSel(r)}}}`;
}

/** A random stack: 3 namespaces, up to 24 pods on 3 nodes, NetworkPolicies and up to 6 cluster policies. */
export function randomStackCluster(seed: number): string {
  const r = rng(seed);
  const docs: string[] = [];
  for (let n = 0; n < 3; n++)
    docs.push(
      `apiVersion: v1\nkind: Node\nmetadata: {name: node-${n}, labels: {zone: z${n % 2}}}\nspec: {podCIDR: 10.${1 + (n % 2)}.${n}.0/24}\nstatus: {addresses: [{type: InternalIP, address: 192.168.1.${10 + n}}]}`,
    );
  for (let i = 0; i < 3; i++)
    docs.push(`apiVersion: v1\nkind: Namespace\nmetadata: {name: ns${i}, labels: {team: t${i % 2}}}`);
  const pods = 6 + r.int(19);
  for (let i = 0; i < pods; i++) {
    docs.push(`apiVersion: v1
kind: Pod
metadata: {name: p${i}, namespace: ns${r.int(3)}, labels: {app: ${r.pick(APPS)}}}
spec:
  nodeName: node-${r.int(3)}
  hostNetwork: ${r.int(8) === 0}
  containers: [{name: c, ports: [${PORTS.filter(() => r.int(2) === 0).join(", ")}]}]`);
  }
  for (let i = r.int(4); i > 0; i--) {
    const ingress =
      r.int(2) === 0
        ? `\n  ingress: [{from: [{namespaceSelector: ${nsSel(r)}}]${r.int(2) ? ", ports: [{port: 80}]" : ""}}]`
        : "";
    const types = r.pick(["[Ingress]", "[Egress]", "[Ingress, Egress]"]);
    const egress = r.int(2) === 0 ? `\n  egress: [{to: [{podSelector: ${podSel(r)}}]}]` : "";
    docs.push(
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np${i}, namespace: ns${r.int(3)}}\nspec:\n  podSelector: ${podSel(r)}\n  policyTypes: ${types}${ingress}${egress}`,
    );
  }
  const priorities = [1, 2, 3, 4, 5, 6, 7, 8];
  for (let i = r.int(5); i > 0; i--) {
    const tier = r.pick(["Admin", "Baseline"]);
    const prio = priorities.splice(r.int(priorities.length), 1)[0]!;
    let spec = `  tier: ${tier}\n  priority: ${prio}\n  subject: ${subject(r)}`;
    if (r.int(3) > 0) spec += `\n  ingress: ${tierRules(r, false, false, ["Accept", "Deny", "Pass"])}`;
    if (r.int(3) > 0) spec += `\n  egress: ${tierRules(r, true, false, ["Accept", "Deny", "Pass"])}`;
    docs.push(
      `apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata: {name: cnp${i}}\nspec:\n${spec}`,
    );
  }
  if (r.int(2) === 0) {
    let spec = `  priority: ${priorities[0]}\n  subject: ${subject(r)}`;
    spec += `\n  ingress: ${tierRules(r, false, true, ["Allow", "Deny", "Pass"])}`;
    spec += `\n  egress: ${tierRules(r, true, true, ["Allow", "Deny", "Pass"])}`;
    docs.push(
      `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: anp}\nspec:\n${spec}`,
    );
  }
  if (r.int(2) === 0) {
    let spec = `  subject: ${subject(r)}`;
    spec += `\n  ingress: ${tierRules(r, false, true, ["Allow", "Deny"])}`;
    spec += `\n  egress: ${tierRules(r, true, true, ["Allow", "Deny"])}`;
    docs.push(
      `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata: {name: default}\nspec:\n${spec}`,
    );
  }
  docs.push(...statefulSetReplicas(seed));
  return docs.join("\n---\n");
}

const POD_NAME = "statefulset.kubernetes.io/pod-name";

/**
 * Replicas of StatefulSets, as the apiserver shows them: one template's
 * labels and ports, each with its own pod-name label, which classes leave out unless a selector reads it
 * (netpol/classes.ts buildPolicyIndex), and sometimes a NetworkPolicy that
 * reads it. From a stream of their own, so that the rest of a seed's cluster
 * is the same as before they were added.
 */
function statefulSetReplicas(seed: number): string[] {
  const r = rng(seed ^ 0x5eed5);
  const docs: string[] = [];
  for (let i = r.int(5); i > 0; i--) {
    const set = r.pick(["db", "cache"]);
    const ns = set === "db" ? "ns0" : "ns1";
    const name = `${set}-${i}`;
    docs.push(`apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
  labels: {app: ${set === "db" ? "a" : "b"}, ${POD_NAME}: ${name}}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: ${set}, uid: u-${set}, controller: true}]
spec:
  nodeName: node-${r.int(3)}
  containers: [{name: c, ports: [${set === "db" ? PORTS[0] : PORTS.slice(1).join(", ")}]}]`);
  }
  if (r.int(3) === 0) {
    const ns = r.pick(["ns0", "ns1"]);
    const one = `{matchLabels: {${POD_NAME}: ${r.pick(["db-1", "db-2", "cache-1"])}}}`;
    docs.push(
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: one-replica, namespace: ${ns}}\nspec:\n  podSelector: ${r.int(2) ? one : "{}"}\n  policyTypes: [Ingress]\n  ingress: [{from: [{podSelector: ${r.int(2) ? one : podSel(r)}}]}]`,
    );
  }
  return docs;
}
