import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { connlistName } from "../connlist/index.ts";
import type { Model, Workload } from "./types.ts";

const load = (text: string) => loadModel([{ name: "in.yaml", text }]);
/** The model's workloads in netpol-analyzer's order and naming (connlist's). */
const named = (m: Model): (Workload & { name_: string })[] =>
  m.workloads
    .map((w) => ({ ...w, name_: connlistName(w) }))
    .sort((a, b) => (a.name_ < b.name_ ? -1 : a.name_ > b.name_ ? 1 : 0));
const keys = (text: string) => named(load(text)).map((w) => w.name_);

const pod = (name: string, owner = "", labels = "{app: x}") => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: kube-system
  labels: ${labels}
${owner ? `  ownerReferences:\n${owner}` : ""}
spec:
  containers: [{name: c, image: i}]
---
`;

describe("workload grouping: pods by their controller ownerReference (netpol-analyzer README items 1-2)", () => {
  it("minikube_resources: owner kinds are kept though the owners are absent; static pods (Node owner) are their own workload", () => {
    const text = [
      pod(
        "coredns-64897985d-abcde",
        "    - {apiVersion: apps/v1, kind: ReplicaSet, name: coredns-64897985d, controller: true}",
      ),
      pod(
        "kube-proxy-x1",
        "    - {apiVersion: apps/v1, kind: DaemonSet, name: kube-proxy, controller: true}",
      ),
      pod(
        "kube-proxy-x2",
        "    - {apiVersion: apps/v1, kind: DaemonSet, name: kube-proxy, controller: true}",
      ),
      pod(
        "ingress-nginx-admission-create-q",
        "    - {apiVersion: batch/v1, kind: Job, name: ingress-nginx-admission-create, controller: true}",
      ),
      pod("etcd-minikube", "    - {apiVersion: v1, kind: Node, name: minikube, controller: true}"),
      pod("storage-provisioner"),
    ].join("");
    const m = load(text);
    expect(named(m).map((w) => [w.name_, w.pods.length, w.given])).toEqual([
      ["kube-system/coredns-64897985d[ReplicaSet]", 1, false],
      ["kube-system/etcd-minikube[Pod]", 1, false],
      ["kube-system/ingress-nginx-admission-create[Job]", 1, false],
      ["kube-system/kube-proxy[DaemonSet]", 2, false],
      ["kube-system/storage-provisioner[Pod]", 1, false],
    ]);
  });

  it("onlineboutique: a ReplicaSet owner is not folded into a Deployment", () => {
    expect(
      keys(
        pod(
          "frontend-99684f7f8-x",
          "    - {apiVersion: apps/v1, kind: ReplicaSet, name: frontend-99684f7f8, controller: true}",
          "{app: frontend, pod-template-hash: 99684f7f8}",
        ),
      ),
    ).toEqual(["kube-system/frontend-99684f7f8[ReplicaSet]"]);
  });

  it("example_pods_w_same_owner_and_labels_gap_with_good_match_expression: a controller reference without kind groups its pods under the owner's name as [Pod]", () => {
    const owner = "    - {name: internal-security, controller: true}";
    const m = load(
      pod("pod-1", owner, "{app: command-selector}") +
        pod("pod-2", owner, "{app: query-selector}") +
        pod("pod-3", "", "{app: pod3}"),
    );
    expect(named(m).map((w) => w.name_)).toEqual([
      "kube-system/internal-security[Pod]",
      "kube-system/pod-3[Pod]",
    ]);
    expect(m.workloads[0]!.pods.map((p) => p.name)).toEqual(["pod-1", "pod-2"]);
    expect(m.workloads[0]!.labels).toEqual({ app: "command-selector" });
  });

  it("an owner without controller: true does not group (metav1.GetControllerOf)", () => {
    expect(
      keys(pod("p", "    - {apiVersion: apps/v1, kind: ReplicaSet, name: rs, controller: false}")),
    ).toEqual(["kube-system/p[Pod]"]);
  });

  it("one node per workload object with the template's labels and ports, even with replicas: 0 (README item 1, CronJob via jobTemplate)", () => {
    const m = load(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, ports: [{containerPort: 8080, name: http}]}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ops}
spec:
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: nightly}}
        spec: {containers: [{name: c}]}
`);
    expect(named(m).map((w) => [w.name_, w.pods.length, w.given, w.labels])).toEqual([
      ["default/web[Deployment]", 0, true, { app: "web" }],
      ["ops/nightly[CronJob]", 1, true, { app: "nightly" }],
    ]);
    expect(m.workloads[0]!.ports).toEqual([{ containerPort: 8080, protocol: "TCP", name: "http" }]);
  });
});
