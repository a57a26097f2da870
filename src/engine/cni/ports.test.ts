/**
 * Ports a CNI refuses (issue 31): Calico's numorstring.Port (0-65535; a
 * range's minimum above its maximum: PortFromRange "minimum port number ...
 * is greater than maximum port number") and Cilium's (the CRD's port pattern
 * and endPort maximum; PortProtocol.Validate parses the port as a 16-bit
 * number). Each is KTL452 with its field and line, never a silent range.
 */
import { describe, expect, it } from "vitest";
import { cluster, type PodSpec } from "./testkit.ts";

const pods: PodSpec[] = [
  { ns: "a", name: "server", labels: { app: "server" }, ports: [{ name: "http", port: 80 }] },
  { ns: "a", name: "client", labels: { app: "client" }, node: 2 },
];
const calico = (ports: string) =>
  `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  selector: app == 'server'\n  ingress:\n  - action: Allow\n    protocol: TCP\n    destination:\n      ports: ${ports}`;
const cilium = (ports: string) =>
  `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - toPorts:\n    - ports: ${ports}`;
const ktl452 = (text: string) =>
  cluster(pods, text)
    .diagnostics.filter((d) => d.code === "KTL452")
    .map((d) => `${d.severity} ${d.field}@${d.line}: ${d.message}`);

describe("ports the CNI refuses", () => {
  it.each<[string, string, string[]]>([
    [
      'Calico "90:80": the range is backwards',
      calico(`["90:80"]`),
      [
        'warning spec.ingress[0].destination.ports[0]@40: spec.ingress[0].destination.ports[0]: minimum port number (90) is greater than maximum port number (80) in port range "90:80": Calico rejects the policy; this entry is ignored',
      ],
    ],
    [
      'Calico "65536"',
      calico(`["65536"]`),
      [
        'warning spec.ingress[0].destination.ports[0]@40: spec.ingress[0].destination.ports[0]: "65536" is not a port: ports run from 0 to 65535, Calico rejects the policy; this entry is ignored',
      ],
    ],
    ["Calico 80:90 and 65535 are ports", calico(`["80:90", 65535]`), []],
    [
      'Cilium port "65536"',
      cilium(`[{port: "65536"}]`),
      [
        "error spec.ingress[0].toPorts[0].ports[0].port@38: spec.ingress[0].toPorts[0].ports[0].port: 65536 is not a port (0 to 65535): the apiserver refuses the policy (CRD validation), so ktl leaves it out",
      ],
    ],
    [
      "Cilium endPort below port",
      cilium(`[{port: "90", endPort: 80}]`),
      [
        "warning spec.ingress[0].toPorts[0].ports[0].endPort@38: spec.ingress[0].toPorts[0].ports[0].endPort: 80 is below port 90: the range holds no port but 90; ktl takes port 90 alone",
      ],
    ],
  ])("%s", (_, text, want) => {
    expect(ktl452(text)).toEqual(want);
  });

  it("a Cilium policy with a port out of range is left out, as the apiserver refuses it", () => {
    const m = cluster(pods, cilium(`[{port: "65536"}]`));
    expect(m.cni?.cilium?.rules ?? []).toEqual([]);
  });
});
