import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import {
  conditionTaints,
  daemonSetTolerations,
  noExecuteOutcome,
  NOT_READY_TAINT,
  taintText,
  tolerates,
  UNREACHABLE_TAINT,
  untoleratedTaint,
  withDefaultTolerations,
  type Toleration,
} from "./taints.ts";
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

const notReady = (ready: "False" | "Unknown", extra: string) =>
  loadModel([
    {
      name: "m.yaml",
      text: `apiVersion: v1
kind: Node
metadata: {name: ok}
---
apiVersion: v1
kind: Node
metadata: {name: sick}
status: {conditions: [{type: Ready, status: "${ready}"}, {type: MemoryPressure, status: "True"}]}
---
${extra}`,
    },
  ]);

describe("not-ready and unreachable nodes (pkg/controller/nodelifecycle TaintNodesByCondition and doNoExecuteTaintingPass; admission DefaultTolerationSeconds; tainteviction getMinTolerationTime)", () => {
  it("a node's conditions become its taints: Ready False is not-ready, Unknown unreachable, NoSchedule and NoExecute; pressure is NoSchedule", () => {
    expect(notReady("False", "").nodesByName.get("sick")!.taints.map(taintText)).toEqual([
      "node.kubernetes.io/not-ready:NoSchedule",
      "node.kubernetes.io/memory-pressure:NoSchedule",
      "node.kubernetes.io/not-ready:NoExecute",
    ]);
    expect(notReady("Unknown", "").nodesByName.get("sick")!.taints.map(taintText)).toEqual([
      "node.kubernetes.io/unreachable:NoSchedule",
      "node.kubernetes.io/memory-pressure:NoSchedule",
      "node.kubernetes.io/unreachable:NoExecute",
    ]);
    // A taint the node already writes is not added twice.
    expect(
      conditionTaints([{ type: "Ready", status: "False" }], [{ key: NOT_READY_TAINT, effect: "NoExecute" }]),
    ).toEqual([{ key: NOT_READY_TAINT, effect: "NoSchedule" }]);
  });

  it("DefaultTolerationSeconds adds not-ready and unreachable NoExecute for 300 s, unless the pod tolerates the key already", () => {
    expect(withDefaultTolerations([]).map((t) => [t.key, t.effect, t.tolerationSeconds])).toEqual([
      [NOT_READY_TAINT, "NoExecute", 300],
      [UNREACHABLE_TAINT, "NoExecute", 300],
    ]);
    const own = tol({ key: NOT_READY_TAINT, operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 });
    expect(withDefaultTolerations([own]).map((t) => [t.key, t.tolerationSeconds])).toEqual([
      [NOT_READY_TAINT, 30],
      [UNREACHABLE_TAINT, 300],
    ]);
  });

  it("on a NoExecute taint a pod stays for the smallest matching tolerationSeconds, forever without one, and goes at once untolerated", () => {
    const taint: Taint = { key: NOT_READY_TAINT, effect: "NoExecute" };
    expect(noExecuteOutcome([taint], withDefaultTolerations([]))).toEqual({ stays: 300, taint });
    expect(noExecuteOutcome([taint], [tol({ key: NOT_READY_TAINT, operator: "Exists" })])).toEqual({
      stays: undefined,
      taint,
    });
    expect(noExecuteOutcome([{ key: "x", effect: "NoExecute" }], withDefaultTolerations([]))).toEqual({
      evicted: { key: "x", effect: "NoExecute" },
    });
    expect(noExecuteOutcome([{ key: "x", effect: "NoSchedule" }], [])).toBeUndefined();
  });

  it("new replicas avoid a not-ready node (its NoSchedule taint), and a DaemonSet does not start there either", () => {
    const m = notReady(
      "False",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, template: {metadata: {labels: {app: w}}, spec: {containers: [{name: c, image: x}]}}}\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: x}]}}}\n",
    );
    expect(m.pods.map((p) => `${p.name.split("-")[0]}@${p.nodeName}`).sort()).toEqual([
      "agent@ok",
      "web@ok",
      "web@ok",
    ]);
  });

  it("a pod bound to a not-ready node is not ready (MarkPodsNotReady) and is said to leave after 300 s", () => {
    const m = notReady(
      "Unknown",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: p}}\nspec: {nodeName: sick, containers: [{name: c, image: x}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec: {nodeName: sick, tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}], containers: [{name: c, image: x}]}\n",
    );
    expect(m.pods.map((p) => [p.name, p.ready])).toEqual([
      ["p", false],
      ["q", false],
    ]);
    const d = m.diagnostics.find((x) => x.code === "KTL209")!;
    expect(d.line).toBe(5);
    expect(d.message).toMatch(/node sick is not ready \(node\.kubernetes\.io\/unreachable:NoExecute\)/);
    expect(d.message).toMatch(/default\/p are evicted 300 s after the taint appeared/);
    expect(d.message).toMatch(/default\/q stay \(they tolerate it without tolerationSeconds\)/);
  });
});
