/**
 * A given pod that bears the name a workload gives one of its pods stands in
 * for it, in its place (model/build.ts). Upstream: the StatefulSet controller
 * creates the pod of an ordinal only when no pod of that name exists
 * (pkg/controller/statefulset stateful_set_control.go, "pod identity"); a
 * dump of `kubectl get pods -o yaml` next to its workload must not double the pods.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { asPodKey } from "./ids.ts";

const base = `apiVersion: v1
kind: Node
metadata:
  name: node-a
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 3
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
        - name: db
          image: pg
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
        - name: agent
          image: agent
`;

const model = (text: string) => loadModel([{ name: "m.yaml", text }]);
const where = (text: string) =>
  model(text).pods.map((p) => `${p.key}@${p.nodeName} ${p.ips.join(",")} ${p.generated ? "gen" : "given"}`);

describe("given pods stand in for the workload pods of the same name", () => {
  const before = model(base);
  const cases = before.pods.map((p) => ({ pod: p.key, node: p.nodeName!, ip: p.ips[0]! }));
  it.each(cases)("$pod written out as a Pod keeps every pod's node and IP", ({ pod, node, ip }) => {
    const name = pod.split("/")[1]!;
    const text = `${base}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels:\n    app: x\nspec:\n  nodeName: ${node}\n  containers:\n    - name: c\n      image: i\nstatus:\n  podIP: ${ip}\n`;
    const after = where(text);
    expect(after).toHaveLength(before.pods.length);
    expect(after.map((l) => l.replace(/ (gen|given)$/, ""))).toEqual(
      where(base).map((l) => l.replace(/ (gen|given)$/, "")),
    );
    expect(after.find((l) => l.startsWith(`${pod}@`))).toMatch(/given$/);
    expect(model(text).podsByKey.get(asPodKey(pod))!.labels).toEqual({ app: "x" });
  });

  it("an unpinned stand-in is placed in its workload's turn", () => {
    const text = `${base}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: db-2\nspec:\n  containers:\n    - name: c\n      image: i\n`;
    expect(model(text).podsByKey.get(asPodKey("default/db-2"))!.nodeName).toBe(
      before.podsByKey.get(asPodKey("default/db-2"))!.nodeName,
    );
  });

  it("a given pod of another name is one more pod", () => {
    const text = `${base}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: db-9\nspec:\n  containers:\n    - name: c\n      image: i\n`;
    expect(model(text).pods).toHaveLength(before.pods.length + 1);
  });
});
