import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../index.ts";
import { computeConnlist } from "./index.ts";
import { addRange, emptyPortSet, formatPortSet, isEmptyPortSet } from "./ports.ts";
import { computeExplain, formatExplainJson, formatExplainTxt } from "./explain.ts";
import { computeExposure } from "./exposure.ts";
import { formatExposure } from "./format.ts";

const DATA = join(import.meta.dirname, "testdata", "explain");

function files(dir: string): { name: string; text: string }[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    if (statSync(path).isDirectory()) return files(path);
    return /\.ya?ml$/.test(f) ? [{ name: path, text: readFileSync(path, "utf8") }] : [];
  });
}
const modelOf = (name: string) => loadModel(files(join(DATA, name, "in")));
const expected = (name: string) => readFileSync(join(DATA, name, "expected.txt"), "utf8").trimEnd();

// Upstream's own cases (netpol-analyzer tests/<case>), byte for byte (trailing newline aside).
const SAME = [
  "netpol-demo", // NetworkPolicy lists, "(no rules defined)"
  "anp_banp_blog_demo", // an Admin tier Pass, then NetworkPolicy or the Baseline tier
  "anp_demo", // a Pass that ends at the system default
  "anp_test_10",
  "anp_and_banp_using_networks_and_nodes_test",
  "anp_banp_test_with_named_port_matched",
  "anp_banp_test_with_named_port_unmatched",
  "netpol_named_port_test",
  "demo_app_with_routes_and_ingress", // the ingress controller through Routes and an Ingress
  "route_example_with_target_port",
  "multiple_ingress_objects_with_different_ports_new",
];

describe("explain: upstream netpol-analyzer cases", () => {
  for (const name of SAME)
    it(name, () => {
      expect(formatExplainTxt(computeExplain(modelOf(name))).trimEnd()).toBe(expected(name));
    });
});

describe("explain: one answer with connlist", () => {
  // Both ask the one decider; the allowed classes of a pair are exactly connlist's line for it.
  for (const name of SAME)
    it(name, () => {
      const model = modelOf(name);
      const lines = new Map(computeConnlist(model).lines.map((l) => [`${l.src} => ${l.dst}`, l.conn]));
      for (const p of computeExplain(model).pairs) {
        const allowed = emptyPortSet();
        for (const c of p.classes)
          if (c.allowed)
            for (const [proto, ranges] of Object.entries(c.conns))
              for (const [a, b] of ranges as [number, number][]) addRange(allowed, proto as "TCP", a, b);
        const key = `${p.src} => ${p.dst}`;
        expect(isEmptyPortSet(allowed) ? undefined : formatPortSet(allowed), key).toBe(lines.get(key));
        lines.delete(key);
      }
      expect([...lines.keys()]).toEqual([]);
    });
});

describe("explain: where ktl deliberately differs from upstream", () => {
  it("exposure_test_with_anp_4_entire_cluster_example: a denied class names the direction that refused it", () => {
    // Upstream's explain+exposure output lists "Denied TCP:[1-79,81-65535], UDP, SCTP" for workload-a => workload-b
    // with only "Ingress (Allowed) due to the system default": the refusing side is missing. deny-all-app-a
    // (policyTypes Ingress and Egress, no rules) isolates workload-a's egress, so ktl names it there.
    const name = "exposure_test_with_anp_4_entire_cluster_example";
    const model = modelOf(name);
    const list = computeConnlist(model);
    const text =
      formatExplainTxt(computeExplain(model)) +
      "\n" +
      formatExposure({ ...list, lines: [] }, computeExposure(model, list), "txt");
    const refused =
      "\t\tEgress (Denied)\n\t\t\tNetworkPolicy 'hello-world/deny-all-app-a' selects hello-world/workload-a[Deployment], but hello-world/workload-b[Deployment] is not allowed by any Egress rule (no rules defined)\n";
    expect(text).toContain(refused);
    const upstream = expected(name);
    expect(upstream).not.toContain(refused);
    // Everything else is upstream's, line for line.
    const ours = text.trimEnd().split("\n");
    const theirs = upstream.split("\n");
    expect(ours.filter((l) => !theirs.includes(l))).toEqual([
      "\t\t\tNetworkPolicy 'hello-world/deny-all-app-a' selects hello-world/workload-a[Deployment], but hello-world/workload-b[Deployment] is not allowed by any Egress rule (no rules defined)",
      "\t\t\tNetworkPolicy 'hello-world/deny-all-app-a' selects hello-world/workload-a[Deployment], but hello-world/workload-b[Deployment] is not allowed by any Ingress rule (no rules defined)",
    ]);
    // ... each under its direction's verdict line, and nothing else added or lost.
    expect(ours.length).toBe(theirs.length + 4);
  });
});

describe("explain: the decider's answers", () => {
  const yaml = (extra: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: a, namespace: shop}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b, namespace: shop}
spec:
  selector: {matchLabels: {app: b}}
  template:
    metadata: {labels: {app: b}}
    spec: {containers: [{name: c, image: x}]}
---
${extra}`;
  const allowB = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: b-in, namespace: shop}
spec:
  podSelector: {matchLabels: {app: b}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: a}}}]
    ports: [{port: 8080}]`;
  const explain = (text: string) => computeExplain(loadModel([{ name: "in.yaml", text }]));

  it("splits a pair's ports by explanation, and agrees with connlist on every allowed port", () => {
    const text = yaml(allowB);
    const e = explain(text);
    const pair = e.pairs.find((p) => p.src === "shop/a[Deployment]" && p.dst === "shop/b[Deployment]")!;
    expect(pair.classes.map((c) => `${c.allowed} ${c.conn}`).sort()).toEqual([
      "false TCP:[1-8079,8081-65535], UDP, SCTP",
      "true TCP:[8080]",
    ]);
    const line = computeConnlist(loadModel([{ name: "in.yaml", text }])).lines.find(
      (l) => l.src === "shop/a[Deployment]" && l.dst === "shop/b[Deployment]",
    )!;
    expect(line.conn).toBe("TCP 8080");
    // b => a: nothing isolates either side, so it is listed among the defaults.
    expect(
      e.pairs.find((p) => p.src === "shop/b[Deployment]" && p.dst === "shop/a[Deployment]")!.byDefault,
    ).toBe(true);
  });

  it("follows the profile: under flannel every pair is the default, and the output says nothing is enforced", () => {
    const e = explain(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-flannel-cfg, namespace: kube-flannel}\n---\n${yaml(allowB)}`,
    );
    expect(e.pairs.every((p) => p.byDefault)).toBe(true);
    expect(formatExplainTxt(e)).toMatch(/Not explained:\nnothing is enforced: the cluster runs .*flannel/);
  });

  it("names a CNI dialect's policy in its own words", () => {
    const e = explain(
      yaml(`apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: deny-a, namespace: shop}
spec:
  endpointSelector: {matchLabels: {app: b}}
  ingressDeny:
  - fromEndpoints: [{matchLabels: {app: a}}]`),
    );
    const pair = e.pairs.find((p) => p.src === "shop/a[Deployment]" && p.dst === "shop/b[Deployment]")!;
    expect(pair.classes).toHaveLength(1);
    expect(pair.classes[0]!.allowed).toBe(false);
    expect(pair.classes[0]!.ingress).toContain("CiliumNetworkPolicy 'shop/deny-a'");
    expect(JSON.parse(formatExplainJson(e)).pairs.length).toBe(e.pairs.length);
  });
});
