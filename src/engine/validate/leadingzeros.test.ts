/**
 * An ipBlock CIDR with leading zeros, as kube-apiserver 1.35 takes it:
 * IsValidCIDRForLegacyField with StrictIPCIDRValidation off (alpha, default
 * false in 1.35: pkg/features kube_features.go) parses it with
 * k8s.io/utils/net ParseCIDRSloppy, which reads the octets as decimal, and
 * the strategy warns (apimachinery validation.GetWarningsForCIDR). ktl
 * stores and enforces it the same way (issue 31: it was "valid" and matched
 * nothing).
 */
import { describe, expect, it } from "vitest";
import { buildModel, parseManifests, validateModel } from "../index.ts";
import { explainPair } from "../netpol/explain.ts";
import { parseLegacyCidr } from "../model/ip.ts";
import { asPodKey } from "../model/ids.ts";

const text = (cidr: string) => `apiVersion: v1
kind: Pod
metadata: {name: client, namespace: x, labels: {app: client}}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
status: {podIP: 10.244.1.7}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: x, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c, image: i, ports: [{containerPort: 80}]}]}
status: {podIP: 10.244.1.9}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: x}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - ipBlock:
        cidr: "${cidr}"
`;

describe("ipBlock CIDRs with leading zeros (ParseCIDRSloppy, GetWarningsForCIDR)", () => {
  it.each<[string, string | undefined]>([
    ["010.244.001.0/24", "10.244.1.0/24"],
    ["10.244.1.0/24", "10.244.1.0/24"],
    ["010.244.001.7/32", "10.244.1.7/32"],
    ["0x0a.244.1.0/24", undefined],
    ["10.244.1.0/033", undefined],
  ])("%s is stored as %s", (cidr, want) => {
    const c = parseLegacyCidr(cidr);
    expect(
      c ? `${[24n, 16n, 8n, 0n].map((s) => (c.first >> s) & 255n).join(".")}/${c.prefix}` : undefined,
    ).toBe(want);
  });

  it("is accepted with the apiserver's warning, and enforced as 10.244.1.0/24", () => {
    const model = buildModel(parseManifests([{ name: "np.yaml", text: text("010.244.001.0/24") }]));
    const r = validateModel(model);
    expect(r.errors).toEqual([]);
    expect(r.warnings.filter((w) => w.code === "KTL612").map((w) => [w.field, w.detail, w.line])).toEqual([
      [
        "spec.ingress[0].from[0].ipBlock.cidr",
        'spec.ingress[0].from[0].ipBlock.cidr: non-standard CIDR value "010.244.001.0/24" will be considered invalid in a future Kubernetes release: use "10.244.1.0/24"',
        22,
      ],
    ]);
    const client = model.podsByKey.get(asPodKey("x/client"))!;
    const web = model.podsByKey.get(asPodKey("x/web"))!;
    expect(explainPair(model, client, web, 80, "TCP").allowed).toBe(true);
  });
});
