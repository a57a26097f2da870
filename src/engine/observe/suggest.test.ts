/**
 * Policies written from traffic, proved by the decider before they are
 * offered: the input plus the YAML printed (parsed again) must still allow
 * every observed forwarded row and drop every observed drop, and every other
 * pair they let through on the ports involved is listed. The YAML passes
 * kube-apiserver's NetworkPolicy validation (src/engine/validate).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifests } from "../parse/manifests.ts";
import { loadModel } from "../load/index.ts";
import { validateModel } from "../validate/index.ts";
import { analyzeObserved } from "./compare.ts";
import { parseFlows } from "./parse.ts";
import { suggestForText, suggestPolicies, type SuggestResult } from "./suggest.ts";

const dir = join(import.meta.dirname, "../../../scenarios/fixtures/observed-vs-predicted");
const fixture = readFileSync(join(dir, "manifests.yaml"), "utf8");

function suggest(manifests: string, flows: string, name = "f.csv"): SuggestResult {
  const parsed = parseManifests([{ name: "m.yaml", text: manifests }]);
  const input = { parsed };
  return suggestPolicies(input, analyzeObserved(input, parseFlows([{ name, text: flows }])));
}

describe.each(["hubble-flows.jsonl", "calico-flows.jsonl", "flows.csv"])("from %s", (file) => {
  const s = suggest(fixture, readFileSync(join(dir, file), "utf8"), file);

  it("the proof holds and nothing beyond the observed flows is allowed between the workloads they govern", () => {
    expect(s.proof.forwarded.failed).toEqual([]);
    expect(s.proof.dropped.failed).toEqual([]);
    expect(s.proof.holds).toBe(true);
    expect(s.proof.extra).toEqual([]);
    expect(s.proof.ports).toEqual(expect.arrayContaining(["TCP/8080", "TCP/9000", "UDP/53"]));
  });

  it("one policy per workload and direction; frontend's ingress left open, since a client outside the input reached it", () => {
    const names = s.policies.map((p) => `${p.direction} ${p.selects}`);
    expect(names).toContain("ingress shop/Deployment/backend");
    expect(names).toContain("egress tools/Pod/toolbox");
    // Only refused: isolated with no rule.
    expect(names).toContain("ingress analytics/Deployment/collector");
    expect(names).not.toContain("ingress shop/Deployment/frontend");
    expect(s.skipped).toEqual([
      {
        workload: "shop/Deployment/frontend",
        direction: "ingress",
        reason: expect.stringMatching(/received 1 flows from .*not in the input/),
      },
    ]);
  });

  it("the YAML selects by stable labels, names ports, allows DNS, and passes apiserver validation", () => {
    expect(s.yaml).not.toMatch(/pod-template-hash|controller-revision-hash|statefulset\.kubernetes\.io/);
    expect(s.yaml).toMatch(/port: http\n/);
    expect(s.yaml).toMatch(
      /k8s-app: kube-dns\n\s+ports:\n\s+- protocol: UDP\n\s+port: 53\n\s+- protocol: TCP\n\s+port: 53/,
    );
    const model = loadModel([
      { name: "m.yaml", text: fixture },
      { name: "suggested.yaml", text: s.yaml },
    ]);
    expect(model.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(model.policies.filter((p) => p.name.startsWith("allow-observed-"))).toHaveLength(
      s.policies.length,
    );
    expect(validateModel(model, { lint: false }).errors).toEqual([]);
  });
});

const twoBackends = `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: shop}
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: backend, namespace: shop}
spec:
  selector: {matchLabels: {app: backend, track: stable}}
  template:
    metadata: {labels: {app: backend, track: stable}}
    spec: {containers: [{name: c, image: x, ports: [{name: http, containerPort: 8080}]}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: canary, namespace: shop}
spec:
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec: {containers: [{name: c, image: x, ports: [{containerPort: 8080}]}]}
`;

describe("what the proof reports", () => {
  it("lists a pair allowed beyond the observed flows, with the policy that admits it", () => {
    // canary's stable labels ({app: backend}) are a subset of backend's: the policies written for canary select
    // backend too, so frontend -> backend, never observed, is allowed.
    const s = suggest(twoBackends, "shop/frontend,shop/canary,8080,TCP,forwarded,5\n");
    expect(s.proof.holds).toBe(true);
    expect(s.proof.extra).toEqual([
      expect.objectContaining({
        src: "shop/Deployment/frontend",
        dst: "shop/Deployment/backend",
        port: 8080,
        protocol: "TCP",
        decidedBy: expect.objectContaining({ kind: "NetworkPolicy", name: "allow-observed-ingress-canary" }),
      }),
    ]);
    expect(s.alsoSelects).toEqual([
      { policy: "shop/allow-observed-ingress-canary", workload: "shop/Deployment/backend" },
    ]);
    // The canary does not name port 8080: the rules give the number.
    expect(s.yaml).toMatch(/port: 8080\n/);
  });

  it("fails when a pair was seen both forwarded and dropped: the drop cannot stay dropped", () => {
    const s = suggest(
      twoBackends,
      "shop/frontend,shop/backend,8080,TCP,forwarded,5\nshop/frontend,shop/backend,8080,TCP,dropped,1\n",
    );
    expect(s.proof.holds).toBe(false);
    expect(s.proof.dropped.failed).toEqual([
      expect.objectContaining({
        src: "shop/Deployment/frontend",
        dst: "shop/Deployment/backend",
        now: "allowed",
      }),
    ]);
  });

  it("writes nothing for a workload without stable labels, and says so", () => {
    const bare = `apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x, labels: {app: b}}
spec: {containers: [{name: c, image: x}]}
`;
    const s = suggest(bare, "x/a,x/b,80,TCP,forwarded,1\n");
    expect(s.policies.map((p) => `${p.direction} ${p.selects}`)).toEqual([]);
    expect(s.skipped.map((k) => `${k.direction} ${k.workload}: ${k.reason}`)).toEqual([
      "ingress x/Pod/b: its peer x/Pod/a has no stable label, so no podSelector can name it",
      "egress x/Pod/a: its pods have no stable label to select them by",
    ]);
  });
});

// Issue 35, item 3: the profile's dialect. The proof parses the YAML again under the same profile, so a
// dialect the engine read otherwise (or a NetworkPolicy where the CNI's own policy was asked for) shows.
describe.each([
  ["cilium", "cilium.io/v2", "CiliumNetworkPolicy"],
  ["cilium-kpr", "cilium.io/v2", "CiliumNetworkPolicy"],
  ["calico", "projectcalico.org/v3", "NetworkPolicy"],
] as const)("under the %s profile", (cni, apiVersion, kind) => {
  const parsed = parseManifests([{ name: "m.yaml", text: fixture }]);
  const input = { parsed, options: { cni } };
  const s = suggestPolicies(
    input,
    analyzeObserved(
      input,
      parseFlows([{ name: "f.csv", text: readFileSync(join(dir, "flows.csv"), "utf8") }]),
    ),
  );
  const docs = s.yaml.split(/^---$/m).filter((d) => /kind:/.test(d));

  it(`writes ${apiVersion} ${kind} only, one per workload and direction`, () => {
    expect(docs.length).toBe(s.policies.length);
    for (const d of docs) {
      expect(d).toContain(`apiVersion: ${apiVersion}`);
      expect(d).toContain(`kind: ${kind}`);
    }
    expect(s.yaml).not.toContain("networking.k8s.io");
    expect(s.yaml).not.toMatch(/pod-template-hash|controller-revision-hash/);
  });

  it("the proof holds under that profile, and nothing beyond the observed flows is allowed", () => {
    expect(s.proof.forwarded.failed).toEqual([]);
    expect(s.proof.dropped.failed).toEqual([]);
    expect(s.proof.holds).toBe(true);
    expect(s.proof.extra).toEqual([]);
  });

  it("a peer of another namespace is named with its namespace, and DNS egress goes to kube-dns", () => {
    if (kind === "CiliumNetworkPolicy") {
      expect(s.yaml).toMatch(/"k8s:io\.kubernetes\.pod\.namespace": tools/);
      expect(s.yaml).toMatch(/k8s-app: kube-dns[\s\S]*?rules:\s+dns:\s+- matchPattern: "\*"/);
    } else {
      expect(s.yaml).toMatch(/namespaceSelector: "kubernetes\.io\/metadata\.name == 'tools'"/);
      expect(s.yaml).toMatch(/selector: "k8s-app == 'kube-dns'"/);
      expect(s.yaml).toMatch(/action: Allow\s+protocol: UDP/);
    }
  });
});

describe("policies from a flow file as an edit of the text (the playground's Write policies)", () => {
  const flows = { name: "flows.csv", text: readFileSync(join(dir, "flows.csv"), "utf8") };
  it("appends the proved policies after the text, kept byte for byte, with the proof's lines", () => {
    const r = suggestForText({ text: fixture, file: "m.yaml" }, flows);
    expect(r.changed).toBe(true);
    expect(r.holds).toBe(true);
    expect(r.text.startsWith(fixture)).toBe(true);
    expect(r.text.endsWith(r.added)).toBe(true);
    expect(r.summary).toMatch(/^\d+ NetworkPolicies from the observed flows$/);
    expect(r.lines.at(-1)).toBe("The proof holds.");
  });

  it("in the profile's dialect", () => {
    const r = suggestForText({ text: fixture, file: "m.yaml", options: { cni: "cilium" } }, flows);
    expect(r.changed).toBe(true);
    expect(r.summary).toMatch(/CiliumNetworkPolicies/);
    expect(r.added).toContain("kind: CiliumNetworkPolicy");
  });

  it("an unreadable flow file changes nothing and says where", () => {
    const r = suggestForText({ text: fixture, file: "m.yaml" }, { name: "bad.jsonl", text: "{not json\n" });
    expect(r.changed).toBe(false);
    expect(r.text).toBe(fixture);
    expect(r.summary).toMatch(/^bad\.jsonl:1: .*no policy written$/);
  });
});
