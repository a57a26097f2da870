/** The playground's flows and matrix follow the CNI's own policies (engine/cni), with their L7 rules on the edge. */
import { describe, expect, it } from "vitest";
import { analyzeText } from "./index.ts";

const TEXT = `apiVersion: v1
kind: Pod
metadata: {name: api, namespace: app, labels: {app: api}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: app, labels: {app: web}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: app, labels: {app: other}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: api-l7, namespace: app}
spec:
  endpointSelector: {matchLabels: {app: api}}
  ingress:
  - fromEndpoints: [{matchLabels: {app: web}}]
    toPorts:
    - ports: [{port: "80", protocol: TCP}]
      rules: {http: [{method: GET, path: "/api/.*"}]}
`;

describe("analysis under a CNI's policies", () => {
  it("pod flows and the matrix follow the CiliumNetworkPolicy; the edge names its L7 rules", () => {
    const a = analyzeText(TEXT);
    const toApi = a.flows.filter((f) => f.to === "pod:app/api");
    const fromWeb = toApi.find((f) => f.from.includes("pod:app/web"))!;
    const fromOther = toApi.find((f) => f.from.includes("pod:app/other"))!;
    expect(fromWeb.verdict).toBe("allow");
    expect(fromWeb.l7).toEqual(["GET /api/.*"]);
    expect(fromOther.verdict).toBe("drop");
    expect(fromOther.decidedBy[0]).toMatchObject({ kind: "CiliumNetworkPolicy", name: "api-l7" });
  });

  it("the cluster profile chosen in the toolbar decides which dialect enforces, and the analysis says which is in effect", () => {
    expect(analyzeText(TEXT).profile).toEqual({
      cni: "generic",
      source: "default",
      text: "generic Kubernetes",
    });
    const calico = analyzeText(TEXT, "m.yaml", { cni: "calico" });
    expect(calico.profile).toMatchObject({ cni: "calico", source: "chosen" });
    // Under Calico the CiliumNetworkPolicy is not enforced: the other pod reaches api.
    const fromOther = calico.flows.find((f) => f.to === "pod:app/api" && f.from.includes("pod:app/other"))!;
    expect(fromOther.verdict).toBe("allow");
  });
});
