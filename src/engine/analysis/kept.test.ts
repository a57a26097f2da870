import { describe, expect, it } from "vitest";
import { FLOW_FIELDS, Kept, KeptAnswer, POD_VIEW_FIELDS, sameFlow, samePodView } from "./kept.ts";
import { openAnalysis } from "./index.ts";
import { YamlPartCache } from "../parse/yaml.ts";
import type { CniName } from "../cni/profile.ts";
import type { Flow, PodView } from "./types.ts";
// @ts-expect-error the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";

const full: Required<Flow> = {
  id: "workload|pod:a/x|service:a/web|80/TCP",
  kind: "service",
  from: ["pod:a/x", "pod:a/y"],
  to: "service:a/web",
  port: 80,
  protocol: "TCP",
  portName: "http",
  verdict: "partial",
  dropCause: "policy",
  reason: "NetworkPolicy admits x's pods at 1 of 2 ready endpoints",
  decidedBy: [{ kind: "NetworkPolicy", namespace: "a", name: "p", line: 3 }],
  traceTo: "service:a/web:80",
  client: "pod:a/x",
  l7: ["GET /api"],
  tier: "Admin",
  layer: "CiliumNetworkPolicy",
  weight: 0.5,
  match: "split rule 1: /*",
};

/** Another value of each field, of its type. */
const other = (k: keyof Flow): unknown => {
  const v = full[k];
  if (Array.isArray(v))
    return [...v.slice(0, -1), typeof v[0] === "string" ? "changed" : { ...v[0], line: 4 }];
  return typeof v === "number" ? v + 1 : `${v}-changed`;
};

describe("a kept flow is the previous one only when every field is the same", () => {
  it("equal copies are the same flow, and an absent field equals an undefined one", () => {
    expect(sameFlow(full, structuredClone(full))).toBe(true);
    const { client: _, ...without } = full;
    expect(sameFlow(without, { ...without, client: undefined } as unknown as Flow)).toBe(true);
  });

  it.each(Object.keys(FLOW_FIELDS) as (keyof Flow)[])("a change of %s is seen", (k) => {
    expect(sameFlow(full, { ...full, [k]: other(k) })).toBe(false);
    expect(sameFlow(full, { ...full, [k]: undefined } as unknown as Flow)).toBe(false);
  });
});

describe("a kept pod view is the previous one only when every field is the same", () => {
  const pod: Required<PodView> = {
    id: "pod:a/web-1",
    namespace: "a",
    name: "web-1",
    node: "node:n1",
    ips: ["10.0.0.5"],
    ipsSynthesized: true,
    labels: { app: "web", tier: "front" },
    workload: { id: "workload:a/Deployment/web", kind: "Deployment", name: "web" },
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    hostNetwork: false,
    ready: true,
    phase: "Running",
    terminating: false,
    generated: true,
    ref: { kind: "Pod", namespace: "a", name: "web-1", line: 3 },
    isolatedBy: { ingress: [{ kind: "NetworkPolicy", namespace: "a", name: "deny", line: 9 }], egress: [] },
  };
  const changed = (k: keyof PodView): unknown => {
    const v = pod[k];
    if (typeof v === "boolean") return !v;
    if (typeof v === "string") return `${v}-changed`;
    if (Array.isArray(v)) return [...v, v[0]];
    if (k === "labels") return { ...pod.labels, tier: "back" };
    if (k === "isolatedBy") return { ingress: [], egress: pod.isolatedBy.ingress };
    return { ...(v as object), name: "changed" };
  };

  it("an equal copy is the same view, and the same policy references are compared by identity", () => {
    expect(samePodView(pod, { ...structuredClone(pod), isolatedBy: pod.isolatedBy })).toBe(true);
    expect(samePodView(pod, { ...pod, labels: { tier: "front", app: "web" } })).toBe(true);
  });

  it.each(Object.keys(POD_VIEW_FIELDS) as (keyof PodView)[])("a change of %s is seen", (k) => {
    expect(samePodView(pod, { ...pod, [k]: changed(k) })).toBe(false);
  });

  it("an unchanged pod's view is the previous analysis's object after an edit elsewhere", () => {
    const text = generate("S").text as string;
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = openAnalysis([{ name: "a.yaml", text }], keep).analysis.pods;
    const after = openAnalysis([{ name: "a.yaml", text: `${text}\n# an edit\n` }], keep).analysis.pods;
    expect(after).toEqual(before);
    expect(after.every((p, i) => p === before[i])).toBe(true);
  });
});

describe("Kept", () => {
  const byId = () =>
    new Kept<{ id: string; v: number }>(
      (x) => x.id,
      (a, b) => a.v === b.v,
    );
  const items = (...xs: [string, number][]) => xs.map(([id, v]) => ({ id, v }));

  it("keeps an equal item, at its place or moved, and takes a changed or new one", () => {
    const kept = byId();
    kept.round();
    const first = items(["a", 1], ["b", 2], ["c", 3], ["d", 4]).map((x) => kept.keep(x));
    kept.round();
    // A new item above shifts the rest; "c" changed; "a" moved to the end on its own.
    const next = items(["n", 0], ["b", 2], ["c", 9], ["d", 4], ["a", 1]);
    const out = next.map((x) => kept.keep(x));
    expect(out[0]).toBe(next[0]);
    expect(out[1]).toBe(first[1]);
    expect(out[2]).toBe(next[2]);
    expect(out[3]).toBe(first[3]);
    expect(out[4]).toBe(first[0]);
    // Only the last round is kept.
    kept.round();
    expect(kept.keep({ id: "c", v: 3 })).not.toBe(first[2]);
  });
});

describe("openAnalysis with `keep`", () => {
  const text = (generate("S") as { text: string }).text;
  const flows = (a: ReturnType<typeof openAnalysis>["analysis"]) => [...a.flows, ...(a.reach?.flows ?? [])];

  it("an edit that turns a few flows keeps the others as the very objects, and answers as from scratch", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = openAnalysis([{ name: "c.yaml", text }], keep).analysis;
    expect(before.reach?.flows.length).toBeGreaterThan(100);
    // A label of one template: its pods change class, their flows change, the rest do not.
    const at = text.indexOf("\n        app: ");
    const edited = `${text.slice(0, at + 14)}renamed-${text.slice(at + 14)}`;
    const after = openAnalysis([{ name: "c.yaml", text: edited }], keep).analysis;
    const scratch = openAnalysis([{ name: "c.yaml", text: edited }]).analysis;
    const timeless = (a: typeof after) => ({ ...a, stats: { ...a.stats, millis: 0 } });
    expect(timeless(after)).toEqual(timeless(scratch));
    const old = new Set(flows(before));
    const same = flows(after).filter((f) => old.has(f));
    expect(same.length).toBeGreaterThan(flows(after).length / 2);
    expect(same.length).toBeLessThan(flows(after).length);
    // Without `keep`, nothing is shared.
    expect(flows(scratch).some((f) => old.has(f))).toBe(false);
  });

  it("answers as from scratch after each of a sequence of edits of labels, ports, replicas and policies", () => {
    const lines = text.split("\n");
    const find = (re: RegExp, nth: number) => {
      const at = lines.findIndex((l, i) => re.test(l) && i > (nth * lines.length) / 8);
      if (at < 0) throw new Error(`no line ${re} in the cluster`);
      return at;
    };
    const edits: ((l: string[]) => void)[] = [
      (l) => void (l[find(/^\s+app: [\w-]+$/, 1)] += "-x"),
      (l) => void (l[find(/^\s+(- )?(port|containerPort|targetPort): \d+$/, 2)] += "1"),
      (l) => void (l[find(/^\s+replicas: \d+$/, 3)] = "  replicas: 1"),
      (l) => void (l[find(/^ {2}policyTypes: \[Ingress, Egress\]$/, 2)] = "  policyTypes: [Ingress]"),
      (l) => void (l[find(/^ {4}- \{port: 53, protocol: TCP\}$/, 0)] = "    - {port: 5353, protocol: TCP}"),
      (l) =>
        void l.push(
          "---",
          "apiVersion: networking.k8s.io/v1",
          "kind: NetworkPolicy",
          "metadata: {name: open-all, namespace: default}",
          "spec: {podSelector: {}, egress: [{}], policyTypes: [Egress]}",
        ),
      (l) => void (l[find(/^\s+app: [\w-]+$/, 1)] = l[find(/^\s+app: [\w-]+$/, 1)]!.replace(/-x$/, "")),
      (l) => void l.splice(l.length - 5, 5),
    ];
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const edited = [...lines];
    openAnalysis([{ name: "c.yaml", text }], keep);
    for (const e of edits) {
      e(edited);
      const t = edited.join("\n");
      const kept = openAnalysis([{ name: "c.yaml", text: t }], keep).analysis;
      const scratch = openAnalysis([{ name: "c.yaml", text: t }]).analysis;
      expect(kept.reach?.flows).toEqual(scratch.reach?.flows);
      expect(kept.flows).toEqual(scratch.flows);
    }
  });
});

describe("a workload flow taken unbuilt (its inputs equal the kept one's)", () => {
  const pod = (name: string, labels: string, port = "") =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: a, labels: {${labels}}}\nspec: {containers: [{name: c, image: x${port}}]}\n`;
  const policy = (name: string, spec: string) =>
    `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: ${name}, namespace: a}\nspec: ${spec}\n`;
  const base = [
    pod("client", "app: client"),
    pod("web-1", "app: web, zone: one", ", ports: [{containerPort: 80}]"),
    pod("web-2", "app: web, zone: two", ", ports: [{containerPort: 80}]"),
    "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: a}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n",
    policy("deny-in", "{podSelector: {}, policyTypes: [Ingress]}"),
    policy(
      "web-in",
      "{podSelector: {matchLabels: {zone: one}}, ingress: [{from: [{podSelector: {matchLabels: {app: client}}}]}]}",
    ),
    policy(
      "client-out",
      "{podSelector: {matchLabels: {app: client}}, policyTypes: [Egress], egress: [{ports: [{port: 80}]}]}",
    ),
  ];
  const text = (docs: string[]) => docs.join("---\n");
  // Every pod-to-Service pair as a workload flow (FLOW_BUDGET 0).
  const analyse = (
    t: string,
    options: { keep?: KeptAnswer; parseCache?: YamlPartCache; cni?: CniName } = {},
  ) => openAnalysis([{ name: "a.yaml", text: t }], { flowBudget: 0, ...options }).analysis;
  const clientFlow = (a: ReturnType<typeof analyse>) =>
    a.reach!.flows.find((f) => f.from[0] === "pod:a/client" && f.to === "service:a/web")!;

  it.each([
    [
      "an endpoint's label: as many senders, more endpoints admit them",
      [
        base[0]!,
        base[1]!,
        pod("web-2", "app: web, zone: one", ", ports: [{containerPort: 80}]"),
        ...base.slice(3),
      ],
    ],
    [
      "another egress policy of the sender: the same count, one more deciding policy",
      [...base, policy("client-more", "{podSelector: {matchLabels: {app: client}}, egress: [{}]}")],
    ],
  ])("%s", (_, edited) => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = clientFlow(analyse(text(base), keep));
    const after = clientFlow(analyse(text(edited), keep));
    expect(after).toEqual(clientFlow(analyse(text(edited))));
    expect(after).not.toEqual(before);
  });

  it.each([["flannel", "cilium"] as const, ["cilium", "calico"] as const])(
    "under another CNI profile (%s, then %s): the flows of a fresh analysis under it",
    (first, then) => {
      const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
      analyse(text(base), { ...keep, cni: first });
      const next = analyse(text(base), { ...keep, cni: then });
      expect(next.reach!.flows).toEqual(analyse(text(base), { cni: then }).reach!.flows);
    },
  );
});

describe("an endpoint flow taken unbuilt (its inputs equal the kept one's)", () => {
  const docs = (portName: string) =>
    [
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: a, labels: {app: web}}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}\n",
      `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: a}\nspec: {selector: {app: web}, ports: [{port: 80${portName}}]}\n`,
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny-in, namespace: a}\nspec: {podSelector: {}, policyTypes: [Ingress]}\n",
    ].join("---\n");
  const analyse = (
    t: string,
    options: { keep?: KeptAnswer; parseCache?: YamlPartCache; cni?: CniName } = {},
  ) => openAnalysis([{ name: "a.yaml", text: t }], options).analysis;
  const endpoints = (a: ReturnType<typeof analyse>) => a.flows.filter((f) => f.kind === "endpoint");

  it("a Service port given a name (the same verdict and words): the flow of a fresh analysis, with the name", () => {
    const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
    const before = endpoints(analyse(docs(""), keep));
    const after = endpoints(analyse(docs(", name: http"), keep));
    expect(after).toEqual(endpoints(analyse(docs(", name: http"))));
    expect(after[0]!.portName).toBe("http");
    expect(before[0]!.portName).toBeUndefined();
  });

  it.each([["flannel", "cilium"] as const, ["cilium", "flannel"] as const])(
    "under another CNI profile (%s, then %s): the endpoint flows of a fresh analysis under it",
    (first, then) => {
      const keep = { keep: new KeptAnswer(), parseCache: new YamlPartCache() };
      analyse(docs(""), { ...keep, cni: first });
      const next = analyse(docs(""), { ...keep, cni: then });
      expect(endpoints(next)).toEqual(endpoints(analyse(docs(""), { cni: then })));
    },
  );
});
