import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { applyWhatIf, describeWhatIf, whatIfTargets, type WhatIf, type WhatIfResult } from "./index.ts";
import { loadModel } from "../index.ts";
import type { Model } from "../model/types.ts";
import { asPodKey } from "../model/ids.ts";

const SCENARIOS = join(import.meta.dirname, "../../../scenarios");
const scenario = (id: string) => readFileSync(join(SCENARIOS, id, "manifests.yaml"), "utf8");
const model = (text: string): Model => loadModel([{ name: "manifests.yaml", text }]);
const placement = (m: Model) =>
  new Map(m.pods.map((p) => [p.key, `${p.nodeName ?? "-"} ${p.ips.join(",")}`]));

/** Text outside the edits is byte for byte the input's. */
function expectOnlyEdits(before: string, r: WhatIfResult): void {
  let rebuilt = "";
  let at = 0;
  for (const e of r.edits) {
    rebuilt += before.slice(at, e.start) + e.text;
    at = e.end;
  }
  expect(rebuilt + before.slice(at)).toBe(r.text);
  for (const e of r.edits) expect(e.text).not.toBe(before.slice(e.start, e.end));
}

const NODES_AND_PODS = `# header comment stays
apiVersion: v1
kind: Node
metadata:
  name: node-a
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
spec:
  podCIDR: 10.244.2.0/24 # keep me
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx
          ports:
            - containerPort: 8080
---
# a bare pod
apiVersion: v1
kind: Pod
metadata:
  name: debug
  namespace: shop
spec:
  nodeName: node-a
  containers:
    - name: sh
      image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-abc12
  namespace: shop
  labels:
    app: worker
  ownerReferences:
    - apiVersion: apps/v1
      kind: ReplicaSet
      name: worker
      controller: true
spec:
  nodeName: node-a
  containers:
    - name: w
      image: worker
status:
  phase: Running
  podIP: 10.244.1.50
  conditions:
    - type: Ready
      status: "True"
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-x
  namespace: shop
  ownerReferences:
    - apiVersion: apps/v1
      kind: DaemonSet
      name: agent
      controller: true
spec:
  nodeName: node-a
  containers:
    - name: a
      image: agent
`;

describe("scale (kubectl scale: spec.replicas)", () => {
  const cases: { name: string; text: string; op: WhatIf; line?: string; pods?: number; error?: RegExp }[] = [
    {
      name: "inserts replicas when the Deployment leaves it to the default of 1",
      text: NODES_AND_PODS,
      op: { kind: "scale", workload: "shop/web", replicas: 3 },
      line: "  replicas: 3\n  selector:",
      pods: 3,
    },
    {
      name: "replaces an existing replicas value",
      text: scenario("01-trace-a-shop-across-zones"),
      op: { kind: "scale", workload: "shop/StatefulSet/backend", replicas: 4 },
      line: "  replicas: 4\n",
      pods: 4,
    },
    {
      name: "scales to zero",
      text: scenario("01-trace-a-shop-across-zones"),
      op: { kind: "scale", workload: "workload:shop/StatefulSet/cache", replicas: 0 },
      pods: 0,
    },
    {
      name: "refuses a DaemonSet, which has no replicas",
      text: scenario("03-keep-cache-calls-on-the-node"),
      op: { kind: "scale", workload: "cache/node-cache", replicas: 2 },
      error: /one pod per eligible node/,
    },
    {
      name: "refuses a negative count",
      text: NODES_AND_PODS,
      op: { kind: "scale", workload: "shop/web", replicas: -1 },
      error: /whole number/,
    },
    {
      name: "refuses an unknown workload",
      text: NODES_AND_PODS,
      op: { kind: "scale", workload: "shop/nope", replicas: 2 },
      error: /no workload/,
    },
  ];
  it.each(cases)("$name", ({ text, op, line, pods, error }) => {
    const r = applyWhatIf(text, op);
    if (error) {
      expect(r.changed).toBe(false);
      expect(r.error).toMatch(error);
      expect(r.text).toBe(text);
      return;
    }
    expect(r.changed).toBe(true);
    expectOnlyEdits(text, r);
    if (line) expect(r.text).toContain(line);
    const name = op.kind === "scale" ? op.workload.split("/").pop()! : "";
    expect(model(r.text).pods.filter((p) => p.workload.name === name)).toHaveLength(pods!);
  });
});

describe("cordon (kubectl cordon: spec.unschedulable) and drain (kubectl drain --ignore-daemonsets --force)", () => {
  it("cordon appends spec to a Node that has none, and adds to an existing spec", () => {
    for (const node of ["node-a", "node-b"]) {
      const r = applyWhatIf(NODES_AND_PODS, { kind: "cordon", node });
      expectOnlyEdits(NODES_AND_PODS, r);
      expect(model(r.text).nodesByName.get(node)!.unschedulable).toBe(true);
      expect(r.text).toContain("podCIDR: 10.244.2.0/24 # keep me");
    }
  });

  it("cordon keeps every running pod where it runs (kubectl cordon evicts nothing); only new pods avoid the node (NodeUnschedulable filter)", () => {
    const text = scenario("01-trace-a-shop-across-zones");
    const r = applyWhatIf(text, { kind: "cordon", node: "node-a" });
    expectOnlyEdits(text, r);
    const after = model(r.text);
    expect(after.nodesByName.get("node-a")!.unschedulable).toBe(true);
    expect(placement(after)).toEqual(placement(model(text)));
    expect(after.pods.filter((p) => p.nodeName === "node-a").map((p) => p.key)).toEqual([
      "shop/backend-1",
      "shop/frontend-1",
      "tools/toolbox",
    ]);
    expect(r.notes.join(" ")).toMatch(/shop\/backend-1, shop\/frontend-1\) stay on node-a/);
    expect(after.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // A new replica is placed elsewhere: scale frontend up by one after the cordon.
    const scaled = model(applyWhatIf(r.text, { kind: "scale", workload: "shop/frontend", replicas: 3 }).text);
    expect(
      scaled.pods
        .filter((p) => p.workload.name === "frontend")
        .map((p) => p.nodeName)
        .sort(),
    ).toEqual(["node-a", "node-b", "node-b"]);
  });

  it.each(readdirSync(SCENARIOS).filter((d) => /^\d\d-/.test(d)))(
    "cordon of every node of %s moves no pod and changes no IP",
    (id) => {
      const text = scenario(id);
      const before = model(text);
      for (const n of before.nodes) {
        const r = applyWhatIf(text, { kind: "cordon", node: n.name });
        if (!r.changed) continue;
        expect(placement(model(r.text))).toEqual(placement(before));
      }
    },
  );

  it("cordon writes out every assumed node when the input has no Node, so none vanishes", () => {
    const text =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 4\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: nginx\n";
    const before = model(text);
    const r = applyWhatIf(text, { kind: "cordon", node: "node-2" });
    const after = model(r.text);
    expect(after.nodes.map((n) => [n.name, n.internalIP, n.podCIDRs[0], n.unschedulable])).toEqual(
      before.nodes.map((n) => [n.name, n.internalIP, n.podCIDRs[0], n.name === "node-2"]),
    );
    expect(placement(after)).toEqual(placement(before));
  });

  it("drain deletes bare pods, reschedules controller-owned ones, keeps DaemonSet pods", () => {
    const r = applyWhatIf(NODES_AND_PODS, { kind: "drain", node: "node-a" });
    expectOnlyEdits(NODES_AND_PODS, r);
    const after = model(r.text);
    expect(after.nodesByName.get("node-a")!.unschedulable).toBe(true);
    expect(after.podsByKey.has(asPodKey("shop/debug"))).toBe(false);
    expect(after.podsByKey.get(asPodKey("shop/worker-abc12"))!.nodeName).toBe("node-b");
    expect(after.podsByKey.get(asPodKey("shop/agent-x"))!.nodeName).toBe("node-a");
    expect(after.pods.filter((p) => p.workload.name === "web").every((p) => p.nodeName === "node-b")).toBe(
      true,
    );
    expect(r.text.startsWith("# header comment stays\n")).toBe(true);
    expect(r.notes.join("\n")).toMatch(
      /deleted shop\/debug[\s\S]*evicted shop\/worker-abc12[\s\S]*kept shop\/agent-x/,
    );
  });

  it("refuses an unknown node and says which nodes exist", () => {
    const r = applyWhatIf(NODES_AND_PODS, { kind: "drain", node: "node-z" });
    expect(r.error).toMatch(/node-a, node-b/);
  });
});

describe("pod state (EndpointSlice controller podToEndpoint: serving = Ready, terminating = deletionTimestamp)", () => {
  it("notReady flips an existing Ready condition in place", () => {
    const r = applyWhatIf(NODES_AND_PODS, { kind: "notReady", pod: "shop/worker-abc12" });
    expectOnlyEdits(NODES_AND_PODS, r);
    expect(r.edits).toHaveLength(1);
    expect(r.edits[0]!.text).toBe('"False"');
    expect(model(r.text).podsByKey.get(asPodKey("shop/worker-abc12"))!.ready).toBe(false);
  });

  it("notReady adds a status to a pod without one", () => {
    const r = applyWhatIf(NODES_AND_PODS, { kind: "notReady", pod: "shop/debug" });
    expectOnlyEdits(NODES_AND_PODS, r);
    expect(model(r.text).podsByKey.get(asPodKey("shop/debug"))!.ready).toBe(false);
  });

  it("terminating sets metadata.deletionTimestamp after the namespace line", () => {
    const r = applyWhatIf(
      NODES_AND_PODS,
      { kind: "terminating", pod: "pod:shop/debug" },
      { now: "2025-06-01T12:00:00Z" },
    );
    expect(r.text).toContain('  namespace: shop\n  deletionTimestamp: "2025-06-01T12:00:00Z"\nspec:');
    expect(model(r.text).podsByKey.get(asPodKey("shop/debug"))!.terminating).toBe(true);
  });

  it("a terminating pod that stays Ready keeps serving: its endpoint is serving and terminating, not ready", () => {
    const text = scenario("13-pin-clients-with-session-affinity");
    const r = applyWhatIf(text, { kind: "terminating", pod: "shop/sessions-1" });
    const ep = model(r.text)
      .endpointSlices.flatMap((s) => s.endpoints)
      .find((e) => e.pod === "shop/sessions-1")!;
    expect([ep.ready, ep.serving, ep.terminating]).toEqual([false, true, true]);
  });

  // Every generated pod of every scenario: writing it out moves no other pod and changes no IP.
  const generated = readdirSync(SCENARIOS)
    .filter((d) => /^\d\d-/.test(d))
    .flatMap((d) =>
      model(scenario(d))
        .pods.filter((p) => p.generated)
        .map((p) => ({ scenario: d, pod: p.key })),
    );
  it.each(generated)(
    "writing out $pod of $scenario keeps every pod's node and IP",
    ({ scenario: id, pod }) => {
      const text = scenario(id);
      const before = model(text);
      for (const op of [
        { kind: "notReady", pod },
        { kind: "terminating", pod },
      ] as WhatIf[]) {
        const r = applyWhatIf(text, op);
        expect(r.changed).toBe(true);
        expectOnlyEdits(text, r);
        const after = model(r.text);
        expect(placement(after)).toEqual(placement(before));
        const p = after.podsByKey.get(asPodKey(pod))!;
        expect(p.generated).toBe(false);
        if (op.kind === "notReady") expect(p.ready).toBe(false);
        else expect(p.terminating).toBe(true);
        expect(after.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      }
    },
  );

  it("deletePod removes a given pod's document, keeping the file's header comment", () => {
    const r = applyWhatIf(NODES_AND_PODS, { kind: "deletePod", pod: "shop/debug" });
    expectOnlyEdits(NODES_AND_PODS, r);
    expect(r.text).not.toContain("# a bare pod");
    expect(model(r.text).podsByKey.has(asPodKey("shop/debug"))).toBe(false);
    expect(model(r.text).pods).toHaveLength(model(NODES_AND_PODS).pods.length - 1);
  });

  it("deletePod refuses a pod that its controller recreates at once", () => {
    const r = applyWhatIf(scenario("01-trace-a-shop-across-zones"), {
      kind: "deletePod",
      pod: "shop/backend-0",
    });
    expect(r.changed).toBe(false);
    expect(r.error).toMatch(/recreates it/);
  });

  it("deletePod removes an item of a kind: List", () => {
    const text =
      "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: a\n    spec:\n      containers: [{name: c, image: i}]\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: b\n    spec:\n      containers: [{name: c, image: i}]\n";
    const r = applyWhatIf(text, { kind: "deletePod", pod: "default/a" });
    expect(r.text).toBe(
      "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: b\n    spec:\n      containers: [{name: c, image: i}]\n",
    );
  });
});

describe("policies and Services", () => {
  it("policyOff comments the policy out by default and removes it on request", () => {
    const text = scenario("05-allow-one-caller-after-default-deny");
    const off = applyWhatIf(text, { kind: "policyOff", policy: "shop/default-deny-ingress" });
    expectOnlyEdits(text, off);
    expect(off.text).toContain(
      "# Every pod in shop is isolated for ingress; nothing is allowed yet.\n# apiVersion: networking.k8s.io/v1\n# kind: NetworkPolicy",
    );
    expect(model(off.text).policies.map((p) => p.key)).toEqual(["shop/payments-from-orders"]);
    const removed = applyWhatIf(text, {
      kind: "policyOff",
      policy: "networkpolicy:shop/default-deny-ingress",
      mode: "remove",
    });
    expect(removed.text).not.toContain("default-deny-ingress");
    expect(model(removed.text).policies.map((p) => p.key)).toEqual(["shop/payments-from-orders"]);
  });

  const tp: {
    name: string;
    scenario: string;
    op: WhatIf;
    expectText?: string[];
    absent?: string[];
    error?: RegExp;
  }[] = [
    {
      name: "replaces internalTrafficPolicy",
      scenario: "04-drop-calls-with-no-local-endpoint",
      op: {
        kind: "trafficPolicy",
        service: "default/nginx-sample-svc",
        field: "internalTrafficPolicy",
        value: "Cluster",
      },
      expectText: ["  internalTrafficPolicy: Cluster\n"],
    },
    {
      name: "inserts internalTrafficPolicy when absent",
      scenario: "05-allow-one-caller-after-default-deny",
      op: { kind: "trafficPolicy", service: "shop/payments", field: "internalTrafficPolicy", value: "Local" },
      expectText: ["spec:\n  internalTrafficPolicy: Local\n  selector:"],
    },
    {
      name: "inserts externalTrafficPolicy after type",
      scenario: "12-serve-from-terminating-pods",
      op: { kind: "trafficPolicy", service: "shop/web", field: "externalTrafficPolicy", value: "Cluster" },
      expectText: ["  externalTrafficPolicy: Cluster\n"],
    },
    {
      name: "Local to Cluster drops healthCheckNodePort (dropTypeDependentFields)",
      scenario: "02-spread-load-with-external-local",
      op: {
        kind: "trafficPolicy",
        service: "shop/storefront",
        field: "externalTrafficPolicy",
        value: "Cluster",
      },
      expectText: ["  externalTrafficPolicy: Cluster\n  selector:"],
      absent: ["  healthCheckNodePort:"],
    },
    {
      name: "refuses externalTrafficPolicy on a ClusterIP Service (validateServiceExternalTrafficPolicy)",
      scenario: "05-allow-one-caller-after-default-deny",
      op: { kind: "trafficPolicy", service: "shop/payments", field: "externalTrafficPolicy", value: "Local" },
      error: /externally-accessible/,
    },
  ];
  it.each(tp)("trafficPolicy $name", ({ scenario: id, op, expectText, absent, error }) => {
    const text = scenario(id);
    const r = applyWhatIf(text, op);
    if (error) {
      expect(r.error).toMatch(error);
      return;
    }
    expectOnlyEdits(text, r);
    for (const s of expectText ?? []) expect(r.text).toContain(s);
    for (const s of absent ?? []) expect(r.text).not.toContain(s);
    if (op.kind !== "trafficPolicy") return;
    const svc = model(r.text).services.find((s) => s.key === op.service)!;
    expect(svc[op.field]).toBe(op.value);
    expect(model(r.text).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });
});

describe("flow style (JSON input)", () => {
  it("scale writes JSON-shaped text into a flow mapping", () => {
    const text =
      '{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"}, "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": "pg"}]}}}}\n';
    const r = applyWhatIf(text, { kind: "scale", workload: "default/db", replicas: 2 });
    expect(r.text).toContain('"spec": {"replicas": 2, "selector"');
    expect(JSON.parse(r.text).spec.replicas).toBe(2);
    const again = applyWhatIf(r.text, { kind: "scale", workload: "default/db", replicas: 5 });
    expect(JSON.parse(again.text).spec.replicas).toBe(5);
  });
});

describe("targets and labels", () => {
  it("lists what the controls can act on", () => {
    const t = whatIfTargets(scenario("01-trace-a-shop-across-zones"));
    expect(t.workloads.map((w) => w.id)).toEqual([
      "shop/StatefulSet/frontend",
      "shop/StatefulSet/backend",
      "shop/StatefulSet/cache",
    ]);
    expect(t.nodes.map((n) => n.id)).toEqual(["node-a", "node-b"]);
    expect(t.services.find((s) => s.id === "shop/frontend")).toMatchObject({
      external: true,
      externalTrafficPolicy: "Local",
    });
    expect(t.policies).toHaveLength(4);
  });

  it("names each what-if in one line", () => {
    expect(
      describeWhatIf({
        kind: "trafficPolicy",
        service: "service:shop/web",
        field: "externalTrafficPolicy",
        value: "Cluster",
      }),
    ).toBe("set externalTrafficPolicy of shop/web to Cluster");
    expect(describeWhatIf({ kind: "drain", node: "node:node-a" })).toBe("drain node-a");
  });
});
