import { describe, expect, it } from "vitest";
import { analyzeText } from "./index.ts";
import { defaultScenario } from "../../../scenarios/index.ts";
import { FLOW_BUDGET } from "./flows.ts";
import { parseManifests } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import { deciderOf } from "../decide/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { serviceId } from "./refs.ts";
import { workloadFlows } from "./workloadFlows.ts";
import { setForm } from "../netpol/bitset.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";

// The workload flows must agree with the traced pod-to-Service flows (traceRequest) wherever both exist:
// a small input is analysed with the traced flows, and with the budget forced to zero to get the workload flows.
describe("workloadFlows agrees with the traced flows (pairAllowed vs traceRequest)", () => {
  const text = defaultScenario().manifests;
  const traced = analyzeText(text);
  it("the small input is traced, so it has no workload flows", () => {
    expect(traced.reach).toBeUndefined();
    expect(FLOW_BUDGET).toBeGreaterThan(0);
  });
  const big = analyzeText(text, "manifests.yaml", { flowBudget: 0 });
  it("every workload flow's verdict matches the traced NetworkPolicy verdict of its pods", () => {
    const byPair = new Map<string, string[]>();
    for (const f of traced.flows.filter((x) => x.kind === "service"))
      for (const from of f.from)
        byPair.set(`${from}>${f.to}:${f.port}`, [
          ...(byPair.get(`${from}>${f.to}:${f.port}`) ?? []),
          f.dropCause === "traffic-policy" ? "allow" : f.verdict,
        ]);
    let compared = 0;
    for (const f of big.reach!.flows)
      for (const from of f.from) {
        const t = byPair.get(`${from}>${f.to}:${f.port}`);
        if (!t) continue;
        compared++;
        // A traced drop at some endpoints is partial for the workload; a traced allow is allow or partial (some endpoints refuse).
        expect(
          t.some((v) => v === f.verdict || v === "partial" || f.verdict === "partial"),
          `${from} -> ${f.to}:${f.port}: ${t} vs ${f.verdict}`,
        ).toBe(true);
      }
    expect(compared).toBeGreaterThan(5);
    // Pairs no endpoint admits are counted, not listed: toolbox -> backend is dropped by policy.
    expect(
      big.reach!.flows.some((f) => f.from.includes("pod:tools/toolbox") && f.to === "service:shop/backend"),
    ).toBe(false);
    expect(big.reach!.dropped).toBeGreaterThan(0);
  });
});

// A host-network DaemonSet sends from each node's address, and a pod's own node is always admitted
// (NetworkPolicySpec.ingress: "traffic from the pod's local node is allowed"): the agent on api's node
// reaches api through a default deny, the one on the other node does not. One source per node, not one per workload.
describe("host-network senders are judged per node", () => {
  const text = `
apiVersion: v1
kind: Node
metadata: {name: node-a}
spec: {podCIDR: 10.244.1.0/24}
status: {addresses: [{type: InternalIP, address: 192.168.0.1}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
spec: {podCIDR: 10.244.2.0/24}
status: {addresses: [{type: InternalIP, address: 192.168.0.2}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop, labels: {app: api}}
spec: {nodeName: node-a, containers: [{name: c, image: x, ports: [{containerPort: 8080}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec: {selector: {app: api}, ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: shop}
spec: {podSelector: {}, policyTypes: [Ingress]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: monitoring}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {hostNetwork: true, containers: [{name: c, image: x}]}
`;
  it("the agent on node-a is a flow to api; the one on node-b is counted dropped", () => {
    const a = analyzeText(text, "manifests.yaml", { flowBudget: 0 });
    const agents = a.pods.filter((p) => p.namespace === "monitoring");
    expect(agents.map((p) => p.node).sort()).toEqual(["node:node-a", "node:node-b"]);
    const toApi = a.reach!.flows.filter((f) => f.to === "service:shop/api");
    const onA = agents.find((p) => p.node === "node:node-a")!.id;
    const onB = agents.find((p) => p.node === "node:node-b")!.id;
    expect(toApi.filter((f) => f.from.includes(onA)).map((f) => f.verdict)).toEqual(["allow"]);
    expect(toApi.some((f) => f.from.includes(onB))).toBe(false);
  });
});

// The pairs no endpoint admits come as compact records (ReachDrop): source groups by the side that refused.
// Each is checked, pod group by pod group, against the decider's own answers (decide/: explain, ingress, egress).
// The class rows are sparse or dense by their size (setForm): the egress side of a drop is read from the rows
// turned into columns, each form its own way, so the check runs with every row in either form too.
describe.each([
  ["rows as built", setForm.sparseFactor],
  ["every row sparse", 0],
  ["every row dense", Infinity],
])("compact drops agree with the decider, side by side (%s)", (_, sparseFactor) => {
  const text = (generate("S") as { text: string }).text;
  // An analysis without kept answers builds its own class matrices: each form builds its own.
  const before = setForm.sparseFactor;
  setForm.sparseFactor = sparseFactor;
  const a = analyzeText(text);
  setForm.sparseFactor = before;
  const model = buildModel(parseManifests([{ name: "manifests.yaml", text }]));
  const decider = deciderOf(model);
  const proxy = buildProxyIndex(model);
  it("every dropped group is refused at every ready endpoint, on the side the record names", () => {
    const drops = a.reach!.drops;
    expect(new Set(drops.map((d) => d.side))).toEqual(new Set(["ingress", "egress", "both", "pair"]));
    expect(drops.reduce((n, d) => n + d.count, 0)).toBe(a.reach!.dropped);
    let checked = 0;
    for (const d of drops) {
      const svc = model.services.find((s) => serviceId(s.key) === d.to)!;
      const i = svc.ports.findIndex((p) => p.port === d.port && p.protocol === d.protocol);
      const eps = [...proxy.services.get(svc.key)!.ports[i]!.v4].filter((e) => e.pod && e.ready);
      const ends = eps.map((e) => ({ pod: model.podsByKey.get(e.pod!)!, port: e.port, ip: e.ip }));
      for (let r = 0; r < d.groups.length; r += 2)
        for (let k = d.groups[r]!; k < d.groups[r + 1]!; k++) {
          const src = model.pods[a.reach!.groups[k]!.pods[0]!]!;
          const from = { ip: src.ips[0]!, pod: src };
          const ingress = ends.map((e) => decider.ingress(e.pod, from, e.port, d.protocol));
          const egress = ends.map((e) => decider.egress(src, { ip: e.ip, pod: e.pod }, e.port, d.protocol));
          for (const e of ends) expect(decider.explain(src, e.pod, e.port, d.protocol).allowed).toBe(false);
          if (d.side === "ingress") {
            expect(ingress.every((x) => !x)).toBe(true);
            expect(egress.some((x) => x)).toBe(true);
          } else if (d.side === "egress") {
            expect(ingress.some((x) => x)).toBe(true);
            expect(ends.every((_, j) => !ingress[j] || !egress[j])).toBe(true);
          } else if (d.side === "both") {
            expect(ingress.every((x) => !x) && egress.every((x) => !x)).toBe(true);
          }
          checked++;
        }
    }
    expect(checked).toBe(a.reach!.dropped);
  });
  it("a one-sided record names the policies of the side that refused", () => {
    const ingress = a.reach!.drops.find((d) => d.side === "ingress" && d.decidedBy.length)!;
    expect(
      ingress.decidedBy.every(
        (r) => r.kind === "NetworkPolicy" && r.namespace === ingress.to.split(/[:/]/)[1],
      ),
    ).toBe(true);
  });
});

// The admitted pairs past the listing limit are not counted only (the graph drew none of them: at M 1,935 and at L
// 348,490 allowed connections were missing from the picture): they come as compact records (ReachAllowed), and
// the answer with a limit says, pair by pair, what the answer without one does.
describe("admitted pairs past the listing limit come as compact records", () => {
  const text = (generate("S") as { text: string }).text;
  const model = buildModel(parseManifests([{ name: "manifests.yaml", text }]));
  const index = deciderOf(model).index;
  const proxy = buildProxyIndex(model);
  const whole = workloadFlows(model, index, proxy);
  const limit = Math.floor(whole.flows.length / 3);
  const cut = workloadFlows(model, index, proxy, limit);
  // Each admitted (group, Service port) pair with its verdict, from the flows (by their first pod's group) or the records.
  const groupOfPod = new Map(
    whole.groups.flatMap((g, k) => g.pods.map((i) => [model.pods[i]!.key, k] as const)),
  );
  const pairs = (w: typeof whole) => {
    const out: string[] = [];
    for (const f of w.flows)
      out.push(
        `${groupOfPod.get(f.from[0]!.replace(/^pod:/, "") as never)}>${f.to}:${f.port}/${f.protocol}=${f.verdict}`,
      );
    for (const d of w.allowed)
      for (let r = 0; r < d.groups.length; r += 2)
        for (let k = d.groups[r]!; k < d.groups[r + 1]!; k++)
          out.push(`${k}>${d.to}:${d.port}/${d.protocol}=${d.verdict}`);
    return out.sort();
  };
  it("the whole S answer fits the default limit, so it has no records", () => {
    expect(whole.allowed).toEqual([]);
    expect(whole.omitted).toBe(0);
    expect(limit).toBeGreaterThan(20);
  });
  it("past the limit, every admitted pair is in a record with the verdict the flow had", () => {
    expect(cut.flows).toHaveLength(limit);
    expect(cut.allowed.length).toBeGreaterThan(0);
    expect(new Set(cut.allowed.map((d) => d.verdict)).has("allow")).toBe(true);
    expect(cut.omitted).toBe(cut.allowed.reduce((n, d) => n + d.count, 0));
    expect(cut.omitted).toBe(whole.flows.length - limit);
    expect(pairs(cut)).toEqual(pairs(whole));
    expect(cut.drops).toEqual(whole.drops);
  });
  it("a record's runs are ascending and count its groups", () => {
    for (const d of cut.allowed) {
      let n = 0;
      for (let r = 0; r < d.groups.length; r += 2) {
        expect(d.groups[r]!).toBeLessThan(d.groups[r + 1]!);
        if (r > 0) expect(d.groups[r]!).toBeGreaterThan(d.groups[r - 1]!);
        n += d.groups[r + 1]! - d.groups[r]!;
      }
      expect(n).toBe(d.count);
    }
  });
});

// A dropped sender's side is "ingress" when its own egress would let it out toward the endpoints' classes, and
// "both" when it would not: the egress rows read as columns (every row sparse, every row dense, as built), with
// the endpoints of one Service in two classes and the egress rule reaching only the second.
describe.each([
  ["rows as built", setForm.sparseFactor],
  ["every row sparse", 0],
  ["every row dense", Infinity],
])("a drop's side reads the sender's egress toward every endpoint class (%s)", (_, sparseFactor) => {
  const deny = (ns: string) =>
    `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: ${ns}}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress]\n`;
  const deploy = (ns: string, name: string, labels: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}, ${labels}}}\n    spec: {containers: [{name: c, ports: [{containerPort: 80}]}]}\n`;
  const text = [
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
    deny("a"),
    deploy("a", "db-1", "tier: db"),
    deploy("a", "db-2", "tier: db, replica: second"),
    "apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: a}\nspec:\n  selector: {tier: db}\n  ports: [{port: 80}]\n",
    deploy("a", "near", "role: near"),
    deploy("a", "near-2", "role: near-2"),
    deploy("a", "far", "role: far"),
    // near may send to the second db class only, near-2 to the first only (and both to far: two peers make a row
    // of its own, in the form setForm asks, where one peer's row is the peer's set); far to nothing; the db pods
    // admit nobody.
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: near-out, namespace: a}\nspec:\n  podSelector: {matchLabels: {role: near}}\n  policyTypes: [Egress]\n  egress: [{to: [{podSelector: {matchLabels: {replica: second}}}, {podSelector: {matchLabels: {role: far}}}]}]\n",
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: near-2-out, namespace: a}\nspec:\n  podSelector: {matchLabels: {role: near-2}}\n  policyTypes: [Egress]\n  egress: [{to: [{podSelector: {matchLabels: {app: db-1}}}, {podSelector: {matchLabels: {role: far}}}]}]\n",
  ].join("---\n");
  it("names the near senders' drops ingress refusals and the far sender's a refusal on both sides", () => {
    const before = setForm.sparseFactor;
    setForm.sparseFactor = sparseFactor;
    try {
      const a = analyzeText(text, "manifests.yaml", { flowBudget: 0 });
      const sideOf = (app: string) => {
        const k = a.reach!.groups.findIndex((g) => g.workload.endsWith(`/${app}`));
        return a
          .reach!.drops.filter((d) => d.to === "service:a/db")
          .filter((d) => {
            for (let r = 0; r < d.groups.length; r += 2)
              if (k >= d.groups[r]! && k < d.groups[r + 1]!) return true;
            return false;
          })
          .map((d) => d.side);
      };
      expect(sideOf("near")).toEqual(["ingress"]);
      expect(sideOf("near-2")).toEqual(["ingress"]);
      expect(sideOf("far")).toEqual(["both"]);
    } finally {
      setForm.sparseFactor = before;
    }
  });
});
