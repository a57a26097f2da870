/**
 * The tier steps kept across analyses (walks.ts) name what a fresh analysis
 * names: keyed by what the two classes are, not by their place in the index,
 * and moved with their policy's doc.
 */
import { describe, expect, it } from "vitest";
import { KeptAnswer } from "./kept.ts";
import { openAnalysis } from "./index.ts";
import { YamlPartCache } from "../parse/yaml.ts";

const ns = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`;
/** Each pod on a node of its own: a pair on one node is walked pair by pair, never kept (stackWhy). */
const pod = (namespace: string, name: string, app: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${namespace}, labels: {app: ${app}}}\nspec: {nodeName: node-${name}, containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}\n`;
const service = `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: a}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n`;
/** An Admin tier rule admitting what one namespace sends to namespace a (network-policy-api v1alpha2). */
const admit = (from: string, priority: number) =>
  `apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata: {name: from-${from}}\nspec:\n  tier: Admin\n  priority: ${priority}\n  subject: {namespaces: {matchLabels: {kubernetes.io/metadata.name: a}}}\n  ingress:\n  - name: from-${from}\n    action: Accept\n    from: [{namespaces: {matchLabels: {kubernetes.io/metadata.name: ${from}}}}]\n`;

const docs = (list: string[]) => list.join("---\n");
const analyse = (text: string, keep?: { keep: KeptAnswer; parseCache: YamlPartCache }) =>
  openAnalysis([{ name: "a.yaml", text }], { flowBudget: 0, ...keep }).analysis;
const deciding = (a: ReturnType<typeof analyse>) =>
  Object.fromEntries(a.reach!.flows.map((f) => [f.from[0], f.decidedBy.map((r) => `${r.name}@${r.line}`)]));

/** Pods sort by namespace: web-1 (a), then b1 (b) and c1 (c), each of a class of its own; a Service in front of web. */
const cluster = [
  ns("a"),
  ns("b"),
  ns("c"),
  pod("a", "web-1", "web"),
  pod("b", "b1", "client"),
  pod("c", "c1", "client"),
  service,
];

describe("tier steps kept from one analysis to the next", () => {
  const base = [...cluster, admit("b", 1), admit("c", 2)];

  it("a sender's class takes another's place in the index: its flow names its own rule", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = deciding(analyse(docs(base), keep));
    expect(before["pod:b/b1"]).toEqual([expect.stringMatching(/^from-b@/)]);
    // b1's doc gone: c1's class takes b1's index (after web-1's), so a key by index would name b1's rule.
    const edited = docs(base.filter((d) => !d.includes("name: b1,")));
    const after = deciding(analyse(edited, keep));
    expect(after).toEqual(deciding(analyse(edited)));
    expect(after["pod:c/c1"]).toEqual([expect.stringMatching(/^from-c@/)]);
  });

  it("lines added above a tier policy: its flows name the rule's new line", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = deciding(analyse(docs(base), keep));
    const edited = docs(base).replace("kind: Service\n", "kind: Service\n# one\n# two\n");
    const after = deciding(analyse(edited, keep));
    expect(after).toEqual(deciding(analyse(edited)));
    const line = (d: Record<string, string[]>) => Number(d["pod:b/b1"]![0]!.split("@")[1]);
    expect(line(after)).toBe(line(before) + 2);
  });

  it("a tier policy added: walks are taken again under it", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    analyse(docs(base), keep);
    const edited = docs([...base, admit("c", 0).replaceAll("from-c", "first-c")]);
    const after = deciding(analyse(edited, keep));
    expect(after).toEqual(deciding(analyse(edited)));
    expect(after["pod:c/c1"]).toEqual([expect.stringMatching(/^first-c@/)]);
  });
});

describe("tier steps kept across a NetworkPolicy edit", () => {
  /** A cluster policy of one tier over namespace a's ingress from namespace b. */
  const tier = (name: string, t: "Admin" | "Baseline", action: "Pass" | "Accept") =>
    `apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata: {name: ${name}}\nspec:\n  tier: ${t}\n  priority: 1\n  subject: {namespaces: {matchLabels: {kubernetes.io/metadata.name: a}}}\n  ingress:\n  - name: ${name}\n    action: ${action}\n    from: [{namespaces: {matchLabels: {kubernetes.io/metadata.name: b}}}]\n`;
  /** A NetworkPolicy in a namespace, selecting `app`, admitting namespace b. */
  const netpol = (namespace: string, app: string) =>
    `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np-${namespace}, namespace: ${namespace}}\nspec:\n  podSelector: {matchLabels: {app: ${app}}}\n  ingress: [{from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: b}}}]}]\n`;
  // The Admin tier passes b's traffic into a to NetworkPolicy, which admits it at web; the Baseline tier admits it too.
  const base = [
    ...cluster,
    tier("pass-b", "Admin", "Pass"),
    tier("baseline-b", "Baseline", "Accept"),
    netpol("a", "web"),
  ];

  it("a policy that lets web go: b's flow names the Baseline rule that now decides", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = deciding(analyse(docs(base), keep));
    expect(before["pod:b/b1"]).toEqual([expect.stringMatching(/^np-a@/)]);
    const edited = docs(base).replace("matchLabels: {app: web}", "matchLabels: {app: nobody}");
    const after = deciding(analyse(edited, keep));
    expect(after).toEqual(deciding(analyse(edited)));
    expect(after["pod:b/b1"]).toEqual([expect.stringMatching(/^baseline-b@/)]);
  });

  it("a policy over other pods: the pairs of the classes it does not select are not walked again", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const flowOf = (a: ReturnType<typeof analyse>) => a.reach!.flows.find((f) => f.from[0] === "pod:b/b1")!;
    // web isolated by no policy: b's flow names the Baseline rule.
    const start = base.map((d) => d.replace("matchLabels: {app: web}", "matchLabels: {app: nobody}"));
    const before = flowOf(analyse(docs(start), keep));
    expect(before.decidedBy.map((r) => r.name)).toEqual(["baseline-b"]);
    const walked = keep.keep.tierWalks.last!.walked;
    const edited = docs([...start, netpol("c", "client")]);
    const after = analyse(edited, keep);
    expect(after.reach!.flows).toEqual(analyse(edited).reach!.flows);
    // Only the pairs of c1's class, which the policy selects, are walked again.
    expect(walked).toBeGreaterThan(1);
    expect(keep.keep.tierWalks.last!.walked).toBeLessThan(walked);
    expect(flowOf(after)).toBe(before);
  });
});
