import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { asPodKey } from "./ids.ts";
import { buildCoreModel as buildModel } from "./build.ts";
import { parseManifests } from "../parse/manifests.ts";
import { YamlPartCache } from "../parse/yaml.ts";

const load = (text: string) => loadModel([{ name: "m.yaml", text }]);

describe("namespaces", () => {
  it("implies namespaces that objects name and labels every namespace with kubernetes.io/metadata.name (apiserver NamespaceDefaultLabelName, 1.21+)", () => {
    const m = load(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: other}\n",
    );
    expect(m.namespaces.get("shop")).toMatchObject({
      implied: false,
      labels: { team: "a", "kubernetes.io/metadata.name": "shop" },
    });
    expect(m.namespaces.get("other")).toMatchObject({
      implied: true,
      labels: { "kubernetes.io/metadata.name": "other" },
    });
    expect(m.namespaces.has("default")).toBe(true);
  });

  it("puts objects without metadata.namespace in default", () => {
    const m = load("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    expect(m.pods[0]!.key).toBe("default/p");
  });
});

describe("nodes", () => {
  it("synthesises node-1 and node-2 when the input has no node, deterministically", () => {
    const m = load("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    expect(m.nodes.map((n) => [n.name, n.internalIP, n.podCIDRs[0]])).toEqual([
      ["node-1", "172.18.0.2", "10.244.1.0/24"],
      ["node-2", "172.18.0.3", "10.244.2.0/24"],
    ]);
  });

  it("synthesises a node that a pod names but the input lacks, with a warning", () => {
    const m = load(
      "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: ghost}\n",
    );
    expect(m.nodes.map((n) => n.name)).toEqual(["a", "ghost"]);
    expect(m.diagnostics.map((d) => d.code)).toContain("KTL202");
  });

  it("reads zone, region, addresses, podCIDRs, readiness and cordon from Node objects", () => {
    const m = load(`apiVersion: v1
kind: Node
metadata: {name: a, labels: {topology.kubernetes.io/zone: z1, topology.kubernetes.io/region: r}}
spec: {podCIDR: 10.1.0.0/24, unschedulable: true}
status:
  addresses: [{type: InternalIP, address: 192.168.0.5}]
  conditions: [{type: Ready, status: "False"}]
`);
    expect(m.nodes[0]).toMatchObject({
      zone: "z1",
      region: "r",
      internalIP: "192.168.0.5",
      podCIDRs: ["10.1.0.0/24"],
      ready: false,
      unschedulable: true,
    });
  });
});

const nodes = `apiVersion: v1
kind: Node
metadata: {name: a, labels: {disk: ssd, topology.kubernetes.io/zone: z1}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {disk: hdd, topology.kubernetes.io/zone: z2}}
---
`;

describe("workloads make the pods their controllers would", () => {
  it("Deployment: replicas pods named <name>-<template hash>-<suffix> with the pod-template-hash label, spread over nodes", () => {
    const m = load(`${nodes}apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, ports: [{name: http, containerPort: 8080}]}]}
`);
    expect(m.pods).toHaveLength(3);
    const hash = m.pods[0]!.labels["pod-template-hash"]!;
    for (const p of m.pods) {
      expect(p.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(p.workload).toEqual({ kind: "Deployment", namespace: "shop", name: "web" });
      expect(p.ports).toEqual([{ name: "http", containerPort: 8080, protocol: "TCP" }]);
    }
    expect(m.pods.map((p) => p.nodeName).sort()).toEqual(["a", "a", "b"]);
    // Same input, same names and IPs.
    const again = load(
      `${nodes}apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 3\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, ports: [{name: http, containerPort: 8080}]}]}\n`,
    );
    expect(again.pods.map((p) => [p.key, p.ips[0]])).toEqual(m.pods.map((p) => [p.key, p.ips[0]]));
  });

  it("StatefulSet: ordinal names with the statefulset.kubernetes.io/pod-name label", () => {
    const m = load(`${nodes}apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: 2, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}}
`);
    expect(m.pods.map((p) => p.name)).toEqual(["db-0", "db-1"]);
    expect(m.pods[1]!.labels["statefulset.kubernetes.io/pod-name"]).toBe("db-1");
  });

  it("DaemonSet: one pod per eligible node, honouring nodeSelector, even on cordoned nodes", () => {
    const m = load(`${nodes}apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec: {template: {metadata: {labels: {app: agent}}, spec: {nodeSelector: {disk: ssd}, containers: [{name: c}]}}}
`);
    expect(m.pods.map((p) => p.nodeName)).toEqual(["a"]);
    expect(m.pods[0]!.name).toMatch(/^agent-[a-z0-9]{5}$/);
  });

  it("placement honours nodeSelector and required node affinity", () => {
    const m = load(`${nodes}apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: rs}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z2]}]
      containers: [{name: c}]
`);
    expect(m.pods.map((p) => p.nodeName)).toEqual(["b", "b"]);
  });

  it("a pod no node can run stays Pending with no IP and a warning", () => {
    const m = load(
      `${nodes}apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeSelector: {disk: nvme}, containers: [{name: c}]}\n`,
    );
    expect(m.pods[0]).toMatchObject({ nodeName: undefined, ips: [], phase: "Pending", ready: false });
    expect(m.diagnostics.map((d) => d.code)).toContain("KTL203");
  });

  it("Job and CronJob pods carry the job-name label", () => {
    const m = load(`${nodes}apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec: {template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec: {schedule: "0 0 * * *", jobTemplate: {spec: {template: {spec: {containers: [{name: c}]}}}}}
`);
    expect(m.pods).toHaveLength(2);
    const job = m.pods.find((p) => p.workload.kind === "Job")!;
    const cron = m.pods.find((p) => p.workload.kind === "CronJob")!;
    expect(job.labels["job-name"]).toBe("once");
    expect(cron.labels["job-name"]).toMatch(/^nightly-\d+$/);
  });

  it("caps absurd replica counts", () => {
    const m = load(
      `${nodes}apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 100000000, template: {spec: {containers: [{name: c}]}}}\n`,
    );
    expect(m.pods.length).toBe(20000);
  });
});

describe("pod state", () => {
  it("takes IPs from status, else allocates from the node's podCIDR skipping used addresses", () => {
    const m = load(`apiVersion: v1
kind: Node
metadata: {name: a}
spec: {podCIDR: 10.9.0.0/24}
---
apiVersion: v1
kind: Pod
metadata: {name: given}
spec: {nodeName: a}
status: {podIP: 10.9.0.2}
---
apiVersion: v1
kind: Pod
metadata: {name: made}
spec: {nodeName: a}
---
apiVersion: v1
kind: Pod
metadata: {name: host}
spec: {nodeName: a, hostNetwork: true}
`);
    expect(m.podsByKey.get(asPodKey("default/given"))!.ips).toEqual(["10.9.0.2"]);
    expect(m.podsByKey.get(asPodKey("default/made"))!.ips).toEqual(["10.9.0.3"]);
    expect(m.podsByKey.get(asPodKey("default/host"))!.ips).toEqual([m.nodes[0]!.internalIP]);
  });

  it("never gives two pods one address when nodes' podCIDRs are the same or nested", () => {
    const nodes = (cidrs: string[]) =>
      cidrs.map((c, i) => `apiVersion: v1\nkind: Node\nmetadata: {name: n${i}}\nspec: {podCIDR: ${c}}\n`);
    const deployment = (replicas: number) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: ${replicas}, template: {spec: {containers: [{name: c}]}}}\n`;
    for (const cidrs of [
      ["10.7.0.0/24", "10.7.0.0/24"],
      ["10.7.0.0/16", "10.7.0.0/24"],
      ["10.7.0.0/24", "10.6.0.0/15"],
      ["10.7.0.0/24", "10.8.0.0/24"],
    ]) {
      const m = load([...nodes(cidrs), deployment(12)].join("---\n"));
      const ips = m.pods.flatMap((p) => p.ips);
      expect(ips).toHaveLength(12);
      expect(new Set(ips).size, cidrs.join(" ")).toBe(12);
    }
  });

  it("reads readiness from the Ready condition and terminating from deletionTimestamp", () => {
    const m = load(`apiVersion: v1
kind: Pod
metadata: {name: a, deletionTimestamp: "2026-01-01T00:00:00Z"}
status: {phase: Running, conditions: [{type: Ready, status: "False"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: d}
`);
    expect(m.podsByKey.get(asPodKey("default/a"))).toMatchObject({ ready: false, terminating: true });
    expect(m.podsByKey.get(asPodKey("default/b"))).toMatchObject({ ready: false, terminating: false });
    // IsPodReady (pkg/api/v1/pod): a status without a Ready condition is not ready.
    expect(m.podsByKey.get(asPodKey("default/c"))).toMatchObject({ phase: "Running", ready: false });
    // No status at all: desired state, taken as running and ready.
    expect(m.podsByKey.get(asPodKey("default/d"))).toMatchObject({ phase: "Running", ready: true });
  });

  it("keeps a pod owned by ReplicaSet <deployment>-<pod-template-hash> under that ReplicaSet (the controller as written; its Deployment is not in the input)", () => {
    const m = load(`apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f7c-abcde
  labels: {pod-template-hash: 5d8f7c}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f7c, controller: true}]
`);
    expect(m.pods[0]!.workload).toEqual({ kind: "ReplicaSet", namespace: "default", name: "web-5d8f7c" });
  });

  it("keeps the later of two objects with the same kind, namespace and name, with a warning", () => {
    const m = load(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {v: '1'}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {v: '2'}}\n",
    );
    expect(m.pods).toHaveLength(1);
    expect(m.pods[0]!.labels.v).toBe("2");
    expect(m.diagnostics[0]).toMatchObject({ code: "KTL201", line: 5 });
  });
});

describe("synthesised nodes scale with the pods", () => {
  it("makes enough nodes for kubelet's default 110 pods each, so generated pods all get IPs", () => {
    const m = load(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 500, template: {spec: {containers: [{name: c}]}}}\n",
    );
    expect(m.nodes).toHaveLength(5);
    expect(m.pods.every((p) => p.ips.length === 1)).toBe(true);
    expect(new Set(m.pods.map((p) => p.ips[0])).size).toBe(500);
    expect(m.diagnostics.filter((d) => d.code === "KTL205")).toEqual([]);
  });

  it("reports an exhausted podCIDR once per node, not once per pod", () => {
    const m = load(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {podCIDR: 10.0.0.0/30}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 5, template: {spec: {containers: [{name: c}]}}}\n",
    );
    const ktl205 = m.diagnostics.filter((d) => d.code === "KTL205");
    expect(ktl205).toHaveLength(1);
    expect(ktl205[0]!.message).toContain("for 3 pod(s)");
  });
});

describe("kubectl get -o yaml dumps list workloads with their pods", () => {
  it("a Deployment, its ReplicaSet and its pods make the listed pods only (no generated twins)", () => {
    const m = load(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: 2, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-7d9c5b8f6
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}]
spec: {replicas: 2, template: {metadata: {labels: {app: web, pod-template-hash: 7d9c5b8f6}}, spec: {containers: [{name: c}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-7d9c5b8f6-abcde
  namespace: shop
  labels: {app: web, pod-template-hash: 7d9c5b8f6}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9c5b8f6, controller: true}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-7d9c5b8f6-fghij
  namespace: shop
  labels: {app: web, pod-template-hash: 7d9c5b8f6}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9c5b8f6, controller: true}]
`);
    expect(m.pods.map((p) => p.name)).toEqual(["web-7d9c5b8f6-abcde", "web-7d9c5b8f6-fghij"]);
    expect(m.diagnostics.find((d) => d.code === "KTL206")).toMatchObject({ kind: "Deployment", name: "web" });
  });

  it("pods of a ReplicaSet missing from the input still belong to the Deployment named by their pod-template-hash", () => {
    const m = load(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 3, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-abc-xyz12
  labels: {app: web, pod-template-hash: abc}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]
`);
    expect(m.pods.map((p) => p.name)).toEqual(["web-abc-xyz12"]);
  });

  it("a ReplicaSet owned by a Deployment in the input is expanded by its Deployment only", () => {
    const m = load(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 2, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-old, ownerReferences: [{kind: Deployment, name: web, controller: true}]}
spec: {replicas: 2, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}}
`);
    expect(m.pods).toHaveLength(2);
    expect(m.pods.every((p) => p.workload.kind === "Deployment")).toBe(true);
  });
});

describe("spread placement across scheduling specs", () => {
  it("each pod goes to the eligible node with the fewest pods, ties by node order, whatever other specs placed", () => {
    const m = load(`apiVersion: v1
kind: Node
metadata: {name: a, labels: {disk: ssd}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {disk: hdd}}
---
apiVersion: v1
kind: Node
metadata: {name: c, labels: {disk: ssd}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: x}
spec: {replicas: 4, template: {spec: {nodeSelector: {disk: ssd}, containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: y}
spec: {replicas: 3, template: {spec: {containers: [{name: c}]}}}
`);
    // x: a c a c (ssd only); then y sees loads a2 b0 c2: b, b, then a (a2 b2 c2, first in order).
    expect(m.pods.map((p) => `${p.name}@${p.nodeName}`)).toEqual([
      "x-0@a",
      "x-1@c",
      "x-2@a",
      "x-3@c",
      "y-0@b",
      "y-1@b",
      "y-2@a",
    ]);
  });
});

describe("pods with a status but no podIP (endpointslice util ShouldPodBeInEndpoints: a pod without an IP is never listed)", () => {
  const sts = `apiVersion: v1
kind: Node
metadata: {name: a}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: ns}
spec: {clusterIP: None, publishNotReadyAddresses: true, selector: {app: db}, ports: [{port: 5432}]}
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: ns, labels: {app: db}}
spec: {nodeName: a, containers: [{name: c, image: pg}]}
status: {phase: Running, podIP: 10.244.1.7, conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: db-1, namespace: ns, labels: {app: db}}
spec: {nodeName: a, containers: [{name: c, image: pg}]}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: ns, labels: {app: other}}
spec: {nodeName: a, containers: [{name: c, image: pg}]}
`;
  it("a Pending pod with a status and no podIP gets no IP and is no endpoint, even with publishNotReadyAddresses", () => {
    const m = load(sts);
    expect(m.podsByKey.get(asPodKey("ns/db-1"))).toMatchObject({
      ips: [],
      ipsSynthesized: false,
      phase: "Pending",
    });
    const eps = m.endpointSlices
      .filter((s) => s.serviceName === "db")
      .flatMap((s) => s.endpoints.map((e) => e.addresses[0]));
    expect(eps).toEqual(["10.244.1.7"]);
  });
  it("a pod written without status gets an address from its node's podCIDR, marked synthesised; status IPs are not", () => {
    const m = load(sts);
    expect(m.podsByKey.get(asPodKey("ns/bare"))).toMatchObject({ ipsSynthesized: true });
    expect(m.podsByKey.get(asPodKey("ns/bare"))!.ips[0]).toMatch(/^10\.244\.1\./);
    expect(m.podsByKey.get(asPodKey("ns/db-0"))).toMatchObject({
      ips: ["10.244.1.7"],
      ipsSynthesized: false,
    });
  });
});

describe("the service account is read once, with its deprecated alias", () => {
  // kubernetes pkg/apis/core/v1/conversion.go Convert_v1_PodSpec_To_core_PodSpec: an empty
  // serviceAccountName takes DeprecatedServiceAccount (spec.serviceAccount); the ServiceAccount
  // admission plugin defaults the rest to "default".
  it.each([
    ["serviceAccountName: api", "api"],
    ["serviceAccount: legacy", "legacy"],
    ["{serviceAccountName: api, serviceAccount: legacy}", "api"],
    ["{serviceAccountName: '', serviceAccount: legacy}", "legacy"],
    ["{}", "default"],
  ])("spec %s -> %s, on the pod and on its workload", (spec, sa) => {
    const body = spec.startsWith("{") ? spec.slice(1, -1) : spec;
    const m = load(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {${body}${body ? ", " : ""}containers: [{name: c, image: x}]}`);
    expect(m.pods[0]!.serviceAccount).toBe(sa);
    expect(m.workloads[0]!.serviceAccount).toBe(sa);
  });
});

describe("policies of unchanged documents", () => {
  const doc = (name: string) =>
    `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: ${name}, namespace: shop}\nspec:\n  podSelector: {}\n  ingress:\n  - from:\n    - podSelector: {matchLabels: {app: web}}\n`;
  const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop, labels: {app: web}}\n";
  const policies = (text: string, cache: YamlPartCache) =>
    buildModel(parseManifests([{ name: "m.yaml", text }], { cache })).policies;

  it("are read once: an edit elsewhere keeps them as the objects they were, an edit above moves their lines", () => {
    const cache = new YamlPartCache();
    const text = `${pod}---\n${doc("a")}---\n${doc("b")}`;
    const [a, b] = policies(text, cache);
    const [a2, b2] = policies(text.replace("app: web}}\n---", "app: web, v: x}}\n---"), cache);
    expect(a2).toBe(a);
    expect(b2).toBe(b);
    // A line above: the same values, moved; the policies read again, at their new lines.
    const [a3, b3] = policies(`# a note\n${text}`, cache);
    expect(a3).not.toBe(a);
    expect(a3!.source.line).toBe(a!.source.line + 1);
    expect(b3!.ingress[0]!.peers![0]!.line).toBe(b!.ingress[0]!.peers![0]!.line + 1);
    // A changed policy is read again, the other kept.
    const [a4, b4] = policies(`# a note\n${text.replace("name: b,", "name: c,")}`, cache);
    expect(a4).toBe(a3);
    expect(b4!.name).toBe("c");
  });
});

describe("a Deployment's template hash with the parse cache (values of unchanged docs kept)", () => {
  const deployment = (name: string, app: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: shop}\nspec:\n  replicas: 1\n  template:\n    metadata: {labels: {app: ${app}}}\n    spec: {containers: [{name: c}]}\n`;
  const hashes = (text: string, cache?: YamlPartCache) =>
    buildModel(parseManifests([{ name: "m.yaml", text }], cache ? { cache } : {})).pods.map(
      (p) => p.labels["pod-template-hash"],
    );

  it("is the hash of a fresh parse after each edit: kept for an unchanged template, new for an edited one", () => {
    const cache = new YamlPartCache();
    const steps = [
      `${deployment("a", "web")}---\n${deployment("b", "api")}`,
      // The second template edited: its hash changes, the first's stays.
      `${deployment("a", "web")}---\n${deployment("b", "api2")}`,
      // A line above: both docs move, their values are kept, their hashes stay.
      `# a note\n${deployment("a", "web")}---\n${deployment("b", "api2")}`,
      // A name changed alone: the hash names the workload too.
      `# a note\n${deployment("a", "web")}---\n${deployment("c", "api2")}`,
    ];
    const seen: (string | undefined)[][] = [];
    for (const text of steps) {
      const got = hashes(text, cache);
      expect(got).toEqual(hashes(text));
      seen.push(got);
    }
    expect(seen[1]![0]).toBe(seen[0]![0]);
    expect(seen[1]![1]).not.toBe(seen[0]![1]);
    expect(seen[2]).toEqual(seen[1]);
    expect(seen[3]![1]).not.toBe(seen[2]![1]);
  });
});
