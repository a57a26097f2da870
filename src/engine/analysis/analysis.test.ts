import { describe, expect, it } from "vitest";
import { KeptAnswer, openAnalysis, analyzeText } from "./index.ts";
import { matrixInputsKey } from "./inputKeys.ts";
import { SCENARIOS, defaultScenario } from "../../../scenarios/index.ts";
import { loadModel } from "../index.ts";
import { buildPolicyIndex, classMatrix, explainIngress, podMatrix } from "../netpol/index.ts";
import { asPodKey } from "../model/ids.ts";
import type { ClassSet } from "../netpol/bitset.ts";

const shop = defaultScenario();
const open = (text = shop.manifests) => openAnalysis([{ name: "manifests.yaml", text }]);

describe("scenario catalogue: each scenario's expectations hold (default + exceptions)", () => {
  for (const s of SCENARIOS) {
    if (!s.expect.length) continue;
    it.each(s.expect.map((e) => [s.id, e.from, e.to, e.verdict] as const))(
      "%s: %s -> %s is %s",
      (_, from, to, verdict) => {
        const t = openAnalysis([{ name: s.file, text: s.manifests }]).trace({ from, to, protocol: "TCP" });
        expect(t.error).toBeUndefined();
        expect(t.verdict).toBe(verdict);
      },
    );
  }
});

describe("the default scenario teaches what its README says", () => {
  const a = open().analysis;
  it("has two nodes in two zones", () => {
    expect(a.zones).toEqual([
      { name: "zone-a", nodes: ["node:node-a"] },
      { name: "zone-b", nodes: ["node:node-b"] },
    ]);
  });
  it("shows allowed, NetworkPolicy-dropped and traffic-policy-dropped flows", () => {
    const kinds = new Set(a.flows.map((f) => `${f.verdict}/${f.dropCause ?? ""}`));
    expect(kinds).toContain("allow/");
    expect(kinds).toContain("drop/policy");
    expect(kinds).toContain("drop/traffic-policy");
  });
  it("offers the external client for its LoadBalancer Service", () => {
    expect(a.externalClients).toEqual([{ id: "external:203.0.113.10", ip: "203.0.113.10" }]);
    expect(a.flows.filter((f) => f.kind === "external").map((f) => f.from[0])).toEqual([
      "external:203.0.113.10@node-a",
      "external:203.0.113.10@node-b",
    ]);
  });
  it("is plain JSON (what the worker posts)", () => {
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });
});

describe("flow records agree with the engine's own answers", () => {
  const session = open();
  const { analysis } = session;

  // Pods grouped into one flow must each get the flow's verdict from traceRequest (kube-proxy + NetworkPolicy).
  it("every source of a Service flow gets the flow's verdict when traced alone", () => {
    const service = analysis.flows.filter((f) => f.kind === "service" || f.kind === "external");
    expect(service.length).toBeGreaterThan(10);
    for (const f of service) {
      for (const from of f.from)
        expect(
          session.trace({ from, to: f.traceTo, protocol: f.protocol }).verdict,
          `${from} -> ${f.traceTo}`,
        ).toBe(f.verdict);
    }
  });

  // Endpoint edges come from classMatrix; explainIngress evaluates each connection on its own (netpol/index.ts: the two must agree).
  it("an endpoint edge is allow/partial/drop exactly as explainIngress admits every/some/no pod", () => {
    const model = loadModel([{ name: "manifests.yaml", text: shop.manifests }]);
    const index = buildPolicyIndex(model);
    for (const f of analysis.flows.filter((x) => x.kind === "endpoint")) {
      const dst = model.podsByKey.get(asPodKey(f.to.slice(4)))!;
      const port = dst.ports[0]!.containerPort;
      const admitted = model.pods.filter(
        (src) => explainIngress(model, dst, { ip: src.ips[0]!, pod: src }, port, f.protocol).allowed,
      ).length;
      const expected = admitted === model.pods.length ? "allow" : admitted === 0 ? "drop" : "partial";
      expect(f.verdict, f.id).toBe(expected);
      expect(classMatrix(index, port, f.protocol).ingressFrom.length).toBe(index.classes.length);
    }
  });

  it("the matrix by pod is `ktl reach`'s matrix", () => {
    const model = loadModel([{ name: "manifests.yaml", text: shop.manifests }]);
    const index = buildPolicyIndex(model);
    const reach = podMatrix(index, classMatrix(index, 8080, "TCP"));
    const m = session.matrix({ port: 8080, protocol: "TCP", by: "pod" });
    expect(m.ids).toEqual(model.pods.map((p) => `pod:${p.key}`));
    expect(m.cells).toEqual(reach.map((row) => row.map((a) => (a ? "a" : "d")).join("")));
  });

  it("the matrix admits a host-network sender on the pod's own node, as ktl reach does (NetworkPolicySpec.ingress)", () => {
    const text = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {addresses: [{type: InternalIP, address: 192.168.1.1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: agent}
spec: {nodeName: n1, hostNetwork: true}
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec: {nodeName: n1}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec: {podSelector: {matchLabels: {app: web}}, policyTypes: [Ingress]}`;
    const model = loadModel([{ name: "m.yaml", text }]);
    const index = buildPolicyIndex(model);
    const reach = podMatrix(index, classMatrix(index, 80, "TCP"));
    const m = openAnalysis([{ name: "m.yaml", text }]).matrix({ port: 80, protocol: "TCP", by: "pod" });
    expect(m.cells).toEqual(reach.map((row) => row.map((a) => (a ? "a" : "d")).join("")));
    expect(m.cells[m.ids.indexOf("pod:default/agent")]![m.ids.indexOf("pod:default/web")]).toBe("a");
  });

  it("the matrix by workload is partial where pods of one workload differ", () => {
    const m = session.matrix({ port: 8080, protocol: "TCP", by: "workload" });
    const row = m.ids.indexOf("workload:shop/StatefulSet/frontend");
    const col = m.ids.indexOf("workload:shop/StatefulSet/backend");
    expect(m.cells[row]![col]).toBe("a");
    const tb = m.ids.indexOf("workload:tools/Pod/toolbox");
    expect(m.cells[tb]![col]).toBe("d");
    expect(m.pairs[tb]![col]).toEqual(["pod:tools/toolbox", expect.stringMatching(/^pod:shop\/backend-/)]);
  });
});

describe("traces in the view's shape", () => {
  const session = open();
  it.each([
    ["pod:tools/toolbox", "service:shop/backend:80", "drop", ["pod:tools/toolbox", "service:shop/backend"]],
    ["pod:shop/backend-1", "service:shop/cache:6379", "drop", ["pod:shop/backend-1", "service:shop/cache"]],
    ["pod:tools/toolbox", "pod:shop/frontend-1:8080", "allow", ["pod:tools/toolbox", "pod:shop/frontend-1"]],
  ] as const)("%s -> %s", (from, to, verdict, pathStart) => {
    const t = session.trace({ from, to, protocol: "TCP" });
    expect(t.verdict).toBe(verdict);
    expect(t.path.slice(0, 2)).toEqual(pathStart);
    for (const h of t.hops) if (h.ref) expect(h.ref.line).toBeGreaterThan(0);
  });
  it("a bad question is an error value, not an exception", () => {
    const t = session.trace({ from: "pod:nope/nope", to: "service:shop/backend:80", protocol: "TCP" });
    expect(t.error).toMatch(/no pod nope\/nope/);
    expect(t.path).toEqual([]);
  });
});

describe("broken input keeps the rest", () => {
  it("a YAML error in one document is a diagnostic on its line; the other documents still make pods and flows", () => {
    const broken = shop.manifests.replace("  name: toolbox\n", "  name: toolbox\n  labels: [unclosed\n");
    const line = broken.split("\n").indexOf("  labels: [unclosed") + 1;
    const a = analyzeText(broken);
    const syntax = a.diagnostics.find((d) => d.code === "KTL101");
    expect(syntax).toBeDefined();
    expect(Math.abs(syntax!.line - line)).toBeLessThanOrEqual(2);
    expect(a.pods.map((p) => p.id)).not.toContain("pod:tools/toolbox");
    expect(a.pods.map((p) => p.id)).toContain("pod:shop/frontend-0");
    expect(a.flows.length).toBeGreaterThan(0);
  });
  it.each([[""], ["---\n---\n"], ["kind: [\n"], ["just a string"], ["- a\n- b\n"]])(
    "%j analyses to an empty cluster with diagnostics, never throws",
    (text) => {
      const a = analyzeText(text);
      expect(a.pods).toEqual([]);
      expect(a.flows).toEqual([]);
    },
  );
});

describe("inputs without Services", () => {
  it("draw pod-to-pod flows on declared ports, judged by explainPair", () => {
    const text = `apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x, labels: {app: a}}
spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x, labels: {app: b}}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: only-b, namespace: x}
spec:
  podSelector: {matchLabels: {app: a}}
  ingress: [{from: [{podSelector: {matchLabels: {app: nobody}}}]}]
`;
    const a = analyzeText(text);
    expect(a.flows.map((f) => [f.from, f.to, f.verdict, f.dropCause])).toEqual([
      [["pod:x/b"], "pod:x/a", "drop", "policy"],
    ]);
    expect(a.flows[0]!.decidedBy.map((r) => r.name)).toEqual(["only-b"]);
  });
});

describe("a session answers validation once", () => {
  // The worker asks again for a text it keeps (an undone edit): the answer is the one already computed.
  it("validate() asked twice returns the same diagnostics object", () => {
    const s = open();
    const first = s.validate();
    expect(s.validate()).toBe(first);
    expect(analyzeText(shop.manifests).diagnostics).toEqual(
      expect.arrayContaining(first.map((d) => expect.objectContaining({ code: d.code, line: d.line }))),
    );
  });
});

describe("endpoint edges reuse the previous text's class matrices only when classMatrix's inputs are unchanged", () => {
  const keyOf = (text: string) =>
    matrixInputsKey(buildPolicyIndex(loadModel([{ name: "manifests.yaml", text }])));
  const endpointFlowsOf = (text: string, keep?: KeptAnswer) =>
    openAnalysis([{ name: "manifests.yaml", text }], keep ? { keep } : {}).analysis.flows.filter(
      (f) => f.kind === "endpoint",
    );
  const base = shop.manifests;
  // Each edit: the text change, and whether classMatrix (netpol/index.ts) reads anything it changes.
  it.each([
    ["an image", "image: shop/api", "image: shop/api:v2", false],
    // Its pod-name label is one no selector reads: the new pod joins its sibling's class (buildPolicyIndex).
    ["a StatefulSet replica", "  replicas: 1\n", "  replicas: 2\n", false],
    [
      "a Service port",
      "      port: 6379\n      targetPort: redis",
      "      port: 6380\n      targetPort: redis",
      false,
    ],
    ["a policy's port", "        - port: 6379", "        - port: 6380", true],
    // A quoted number is a named port (no container port is named "6379"): the policy admits nothing more.
    ["a policy's port quoted", "        - port: 6379", '        - port: "6379"', true],
    ["a peer's podSelector", "              app: frontend", "              app: nobody", true],
    ["a pod template's label", "        app: cache\n", "        app: cache2\n", true],
    ["a namespace label", "    team: shop\n", "    team: shop2\n", true],
  ] as const)("%s", (_, from, to, changesInputs) => {
    expect(base).toContain(from);
    const edited = base.replace(from, to);
    expect(keyOf(edited) !== keyOf(base)).toBe(changesInputs);
    // Fresh: no matrices kept. Warm: those of the unedited text, taken whole when the key is equal, else row by row.
    const fresh = endpointFlowsOf(edited);
    const keep = new KeptAnswer();
    endpointFlowsOf(base, keep);
    expect(endpointFlowsOf(edited, keep)).toEqual(fresh);
  });
});

// A NetworkPolicy edit leaves every class it does not select with the rows it had: the next analysis takes
// them as the very objects (keptRows) and computes the rest.
it("a policy's port edit computes the rows of the classes it selects and takes the others' as they were", () => {
  const members = (s: ClassSet | null) => {
    const out: number[] = [];
    s?.forEach((i) => out.push(i));
    return s === null ? "every class" : out;
  };
  const edited = shop.manifests.replace("        - port: 6379", "        - port: 6380");
  expect(edited).not.toBe(shop.manifests);
  const keep = new KeptAnswer();
  openAnalysis([{ name: "manifests.yaml", text: shop.manifests }], { keep });
  const before = keep.matrices!.matrices;
  openAnalysis([{ name: "manifests.yaml", text: edited }], { keep });
  const after = keep.matrices!.matrices;
  expect(after).not.toBe(before);
  const index = buildPolicyIndex(loadModel([{ name: "manifests.yaml", text: edited }]));
  let sets = 0;
  for (const [k, m] of after.byPort) {
    const old = before.byPort.get(k);
    if (!old) continue;
    const fresh = classMatrix(index, m.port, m.protocol);
    for (let c = 0; c < index.classes.length; c++)
      for (const dir of ["ingressFrom", "egressTo"] as const) {
        const at = `${k} ${dir} of ${index.classes[c]!.repr.name}`;
        expect(members(m[dir][c]!), at).toEqual(members(fresh[dir][c]!));
        // cache-from-backend selects the cache pods: their ingress rows are computed again.
        if (dir === "ingressFrom" && index.classes[c]!.labels.app === "cache") continue;
        expect(m[dir][c], at).toBe(old[dir][c]);
        if (m[dir][c] !== null) sets++;
      }
  }
  expect(sets).toBeGreaterThan(0);
});

// An ExternalName Service outside the cluster is a CNAME the client follows itself (kube-proxy programs
// nothing for it: ShouldSkipService): the connection leaves the cluster unless egress policy stops it.
// The playground's question and `ktl trace` (engine/l7) give the same answer.
describe("a question to an ExternalName Service outside the cluster", () => {
  const base = `
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: shop, labels: {app: app}}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Service
metadata: {name: payments, namespace: shop}
spec: {type: ExternalName, externalName: api.example.com, ports: [{port: 443}]}
`;
  const deny = `---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: no-egress, namespace: shop}
spec: {podSelector: {}, policyTypes: [Egress]}
`;
  const ask = (text: string) =>
    openAnalysis([{ name: "m.yaml", text }]).trace({
      from: "pod:shop/app",
      to: "service:shop/payments:443",
      protocol: "TCP",
    });
  it("leaves the cluster toward api.example.com, and names the Host header and SNI the client still sends", () => {
    const t = ask(base);
    expect(t.verdict).toBe("allow");
    expect(t.reason).toContain("api.example.com is outside the cluster");
    expect(t.hops[0]!.detail).toContain("payments.shop.svc.cluster.local");
    expect(t.hops[0]!.detail).toContain("TLS SNI");
  });
  it("asked by its DNS name (host:), it gives the same answer as by the Service", () => {
    const t = openAnalysis([{ name: "m.yaml", text: base }]).trace({
      from: "pod:shop/app",
      to: "host:payments:443",
      protocol: "TCP",
    });
    expect(t.verdict).toBe("allow");
    expect(t.reason).toContain("api.example.com is outside the cluster");
  });
  it("is dropped by an egress default deny at the source", () => {
    const t = ask(base + deny);
    expect(t.verdict).toBe("drop");
    expect(t.hops.some((h) => h.step === "egress policy at source" && h.verdict === "drop")).toBe(true);
  });
});
