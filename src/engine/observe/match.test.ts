/**
 * Matching an observed end to the model: a real cluster's pod names carry
 * the ReplicaSet's pod-template-hash and a random suffix
 * (kube-controller-manager's ReplicaSet and StatefulSet controllers), which
 * the model's own names do not share, so names are tried exactly, then as
 * the workload Hubble names (flow.proto Endpoint.workloads), then as a
 * prefix (Calico's aggregated `name-*`, goldmane's GenerateName), then by
 * stable labels, then by address.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../load/index.ts";
import { matchIndex, resolveEnd, stableLabels } from "./match.ts";
import type { FlowEnd } from "./types.ts";

const text = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-admin, namespace: shop}
spec:
  selector: {matchLabels: {app: web-admin}}
  template:
    metadata: {labels: {app: web-admin, tier: front}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: toolbox, namespace: tools, labels: {app: toolbox}}
spec: {containers: [{name: c, image: x}]}
status: {podIP: 10.244.1.77, podIPs: [{ip: 10.244.1.77}]}
---
apiVersion: v1
kind: Pod
metadata: {name: twin-a, namespace: tools, labels: {team: ops}}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: twin-b, namespace: tools, labels: {team: ops}}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {clusterIP: 10.96.0.30, selector: {app: web}, ports: [{port: 80}]}
`;

const model = loadModel([{ name: "m.yaml", text }]);
const ix = matchIndex(model);
const end = (e: Omit<FlowEnd, "text">): FlowEnd => ({ text: "t", ...e });

describe("resolveEnd", () => {
  it.each([
    ["the pod's own name", end({ namespace: "tools", name: "toolbox" }), "tools/Pod/toolbox", "name"],
    [
      "Hubble's workloads (Deployment)",
      end({
        namespace: "shop",
        name: "web-7d9c8f6b5-x2x9q",
        workloads: [{ kind: "Deployment", name: "web" }],
      }),
      "shop/Deployment/web",
      "workload",
    ],
    [
      "an older Hubble's ReplicaSet, whose Deployment is in the input",
      end({ namespace: "shop", workloads: [{ kind: "ReplicaSet", name: "web-admin-5f6d4c7b9" }] }),
      "shop/Deployment/web-admin",
      "workload",
    ],
    [
      "a real pod name: the longest workload name that prefixes it",
      end({ namespace: "shop", name: "web-admin-5f6d4c7b9-m2p7w" }),
      "shop/Deployment/web-admin",
      "name-prefix",
    ],
    [
      "a StatefulSet pod of another ordinal",
      end({ namespace: "shop", name: "db-3" }),
      "shop/StatefulSet/db",
      "name-prefix",
    ],
    [
      "Calico's aggregated name",
      end({ namespace: "shop", name: "web-86c57db685-", aggregated: true }),
      "shop/Deployment/web",
      "name-prefix",
    ],
    [
      "stable labels only (pod-template-hash ignored)",
      end({ namespace: "shop", labels: { app: "web", tier: "front", "pod-template-hash": "abc" } }),
      "shop/Deployment/web",
      "labels",
    ],
    ["the pod's address", end({ ip: "10.244.1.77" }), "tools/Pod/toolbox", "ip"],
    ["a Service's ClusterIP", end({ ip: "10.96.0.30" }), "service:shop/web", "ip"],
    [
      "a Service by name (CSV service:NS/NAME)",
      end({ namespace: "shop", service: "shop/web" }),
      "service:shop/web",
      "service",
    ],
  ])("matches %s", (_, e, key, how) => {
    const r = resolveEnd(ix, e);
    expect("reason" in r ? r.reason : [r.key, r.how]).toEqual([key, how]);
  });

  it.each([
    [
      "an unknown name",
      end({ namespace: "shop", name: "cart-5f6d4c7b9-m2p7w" }),
      /no pod, workload or name prefix shop\/cart-5f6d4c7b9-m2p7w/,
    ],
    [
      "labels that two workloads carry equally",
      end({ namespace: "tools", labels: { team: "ops" } }),
      /match 2 workloads equally \(Pod twin-a, Pod twin-b\)/,
    ],
    [
      "an address outside the input",
      end({ ip: "203.0.113.7" }),
      /203\.0\.113\.7 is no pod's or Service's address/,
    ],
    [
      "Hubble's world identity",
      end({ ip: "203.0.113.7", outside: "reserved:world: an identity outside the cluster's pods" }),
      /^reserved:world/,
    ],
  ])("does not match %s, and says why", (_, e, why) => {
    const r = resolveEnd(ix, e);
    expect("reason" in r ? r.reason : r.key).toMatch(why);
  });
});

describe("stableLabels", () => {
  it("drops what a controller stamps per pod, revision or run", () => {
    expect({
      ...stableLabels({
        app: "db",
        "pod-template-hash": "x",
        "controller-revision-hash": "db-1",
        "statefulset.kubernetes.io/pod-name": "db-0",
        "apps.kubernetes.io/pod-index": "0",
        "batch.kubernetes.io/job-name": "j-1",
      }),
    }).toEqual({ app: "db" });
  });
});
