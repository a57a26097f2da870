import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { daemonSetTolerations, tolerates, untoleratedTaint, type Toleration } from "./taints.ts";
import type { Taint } from "./types.ts";

const tol = (t: Partial<Toleration>): Toleration => ({
  key: "",
  operator: "Equal",
  value: "",
  effect: "",
  ...t,
});

describe("Toleration.ToleratesTaint (k8s.io/api core/v1 toleration.go, toleration_test.go)", () => {
  const taint: Taint = { key: "foo", value: "bar", effect: "NoSchedule" };
  it.each<[string, Partial<Toleration>, boolean]>([
    ["same key, value and effect (Equal)", { key: "foo", value: "bar", effect: "NoSchedule" }, true],
    ["empty operator is Equal: value must match", { key: "foo", value: "baz", effect: "NoSchedule" }, false],
    ["Exists ignores the value", { key: "foo", operator: "Exists", effect: "NoSchedule" }, true],
    ["empty effect tolerates every effect", { key: "foo", operator: "Exists" }, true],
    ["another effect does not", { key: "foo", operator: "Exists", effect: "NoExecute" }, false],
    ["another key does not", { key: "other", operator: "Exists" }, false],
    ["empty key with Exists tolerates every taint", { operator: "Exists" }, true],
  ])("%s", (_, t, want) => expect(tolerates(tol(t), taint)).toBe(want));

  it("the scheduler's tainttoleration Filter ignores PreferNoSchedule and needs every NoSchedule/NoExecute taint tolerated", () => {
    expect(untoleratedTaint([{ key: "a", effect: "PreferNoSchedule" }], [])).toBeUndefined();
    expect(untoleratedTaint([{ key: "a", effect: "NoExecute" }], [])).toEqual({
      key: "a",
      effect: "NoExecute",
    });
  });

  it("a DaemonSet's automatic tolerations do not cover the control-plane taint (daemonset_util.go AddOrUpdateDaemonPodTolerations)", () => {
    expect(
      untoleratedTaint(
        [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
        daemonSetTolerations(false),
      ),
    ).toBeDefined();
    expect(
      untoleratedTaint(
        [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }],
        daemonSetTolerations(false),
      ),
    ).toBeUndefined();
    expect(
      untoleratedTaint(
        [{ key: "node.kubernetes.io/network-unavailable", effect: "NoSchedule" }],
        daemonSetTolerations(false),
      ),
    ).toBeDefined();
    expect(
      untoleratedTaint(
        [{ key: "node.kubernetes.io/network-unavailable", effect: "NoSchedule" }],
        daemonSetTolerations(true),
      ),
    ).toBeUndefined();
  });
});

const cluster = (extra: string) =>
  loadModel([
    {
      name: "m.yaml",
      text: `apiVersion: v1
kind: Node
metadata: {name: cp, labels: {node-role.kubernetes.io/control-plane: ""}}
spec: {taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}
---
apiVersion: v1
kind: Node
metadata: {name: w1}
---
apiVersion: v1
kind: Node
metadata: {name: w2}
spec: {unschedulable: true}
---
${extra}`,
    },
  ]);

describe("placement with taints (pkg/controller/daemon NodeShouldRunDaemonPod; scheduler tainttoleration and NodeUnschedulable Filter)", () => {
  it("a DaemonSet skips the control-plane node it does not tolerate but runs on the cordoned one, and says so", () => {
    const m = cluster(
      "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: x}]}}}\n",
    );
    expect(m.pods.map((p) => p.nodeName).sort()).toEqual(["w1", "w2"]);
    expect(m.diagnostics.find((d) => d.code === "KTL208")?.message).toMatch(
      /node cp \(node-role\.kubernetes\.io\/control-plane:NoSchedule\)/,
    );
  });
  it("a DaemonSet that tolerates the control-plane taint runs there too", () => {
    const m = cluster(
      "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {template: {metadata: {labels: {app: a}}, spec: {tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}], containers: [{name: c, image: x}]}}}\n",
    );
    expect(m.pods.map((p) => p.nodeName).sort()).toEqual(["cp", "w1", "w2"]);
  });
  it("Deployment replicas avoid the tainted and the cordoned node (the cordon is the node.kubernetes.io/unschedulable taint)", () => {
    const m = cluster(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3, template: {metadata: {labels: {app: w}}, spec: {containers: [{name: c, image: x}]}}}\n",
    );
    expect(m.pods.map((p) => p.nodeName)).toEqual(["w1", "w1", "w1"]);
    expect(m.nodesByName.get("w2")!.taints).toEqual([
      { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" },
    ]);
  });
  it("a toleration of the unschedulable taint lets a pod onto the cordoned node; no fitting node leaves it Pending, naming the taints", () => {
    const m = cluster(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, template: {metadata: {labels: {app: w}}, spec: {tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists}], containers: [{name: c, image: x}]}}}\n",
    );
    expect(m.pods.map((p) => p.nodeName).sort()).toEqual(["w1", "w2"]);
    const pinned = cluster(
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeSelector: {node-role.kubernetes.io/control-plane: ""}, containers: [{name: c, image: x}]}\n',
    );
    expect(pinned.pods[0]!.nodeName).toBeUndefined();
    expect(pinned.diagnostics.find((d) => d.code === "KTL203")?.message).toMatch(
      /cp has taint node-role\.kubernetes\.io\/control-plane:NoSchedule/,
    );
  });
});
