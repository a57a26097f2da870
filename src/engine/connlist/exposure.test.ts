import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../index.ts";
import { computeConnlist } from "./index.ts";
import { computeExposure, representativeName } from "./exposure.ts";
import { formatExposure } from "./format.ts";
import { parseLabelSelector } from "../model/labels.ts";

const DATA = join(import.meta.dirname, "testdata", "exposure");

function run(name: string) {
  const dir = join(DATA, name, "in");
  const model = loadModel(
    readdirSync(dir).map((f) => ({ name: f, text: readFileSync(join(dir, f), "utf8") })),
  );
  const list = computeConnlist(model);
  return { list, exposure: computeExposure(model, list) };
}
const expected = (name: string, ext: string) =>
  readFileSync(join(DATA, name, `expected.${ext}`), "utf8").trimEnd();

// Upstream's own cases (netpol-analyzer tests/<case>), every format byte for byte (trailing newline aside).
const SAME = [
  "exposure_allow_all_test",
  "exposure_test_conn_to_all_pods_in_a_new_ns",
  "exposure_test_conn_with_new_pod_selector_and_ns_selector",
  "exposure_matched_and_unmatched_rules_test",
  "exposure_test_conn_with_pod_selector_in_any_ns",
  "exposure_test_with_multiple_policies_1",
  "exposure_test_to_namespace_except_specific_pod",
  "exposure_test_with_anp_9",
  "exposure_test_with_anp_8",
  "exposure_test_rule_with_multiple_match_expressions",
  // An exposed workload's IP lines are listed in both directions, whichever direction exposed it.
  "exposure_test_with_anp_7_w_banp",
  "anp_banp_blog_demo", // upstream keeps only its txt output
];

describe("exposure: upstream netpol-analyzer cases", () => {
  for (const name of SAME)
    for (const format of (["txt", "json", "md", "csv"] as const).filter((f) =>
      existsSync(join(DATA, name, `expected.${f}`)),
    ))
      it(`${name} (${format})`, () => {
        const { list, exposure } = run(name);
        expect(formatExposure(list, exposure, format).trimEnd()).toBe(expected(name, format));
      });
});

describe("exposure: where ktl deliberately differs from upstream", () => {
  it("exposure_test_with_different_rules_2: a representative gets every rule that all its pods match", () => {
    // Upstream lists hello-world/[pod with {app In [x]}] with TCP 9090 only; every pod with app=x also
    // matches the rule `app Exists` (TCP 8080), so the decider admits both ports from it.
    const { list, exposure } = run("exposure_test_with_different_rules_2");
    const want = expected("exposure_test_with_different_rules_2", "txt").replace(
      "Values:[x],}}] : TCP 9090",
      "Values:[x],}}] : TCP 8080,9090",
    );
    expect(formatExposure(list, exposure, "txt").trimEnd()).toBe(want);
  });

  it("exposure_test_with_match_expression_not_in_op: a representative named by an egress rule is judged on ingress too", () => {
    // Upstream lists hello-world/[pod with {app NotIn [a-app b-app]}] on egress only. workload-a's ingress
    // rule admits any pod in a namespace whose env is not env-a or env-b, and hello-world has no env label,
    // so such a pod is admitted there too: the decider says so, on the ingress side as well.
    const name = "exposure_test_with_match_expression_not_in_op";
    const { list, exposure } = run(name);
    const extra =
      "hello-world/workload-a[Deployment] \t<= \thello-world/[pod with {{Key:app,Operator:NotIn,Values:[a-app b-app],}}] : All Connections";
    const want = expected(name, "txt").replace(
      "\nhello-world/workload-b[Deployment] \t<= \t0.0.0.0",
      `\n${extra}\nhello-world/workload-b[Deployment] \t<= \t0.0.0.0`,
    );
    expect(want).toContain(extra);
    expect(formatExposure(list, exposure, "txt").trimEnd()).toBe(want);
  });

  it("exposure_test_egress_with_named_port: egress on a named port to a representative is named, not listed", () => {
    // Upstream prints `=> [namespace with {...}]/[all pods] : TCP http`; a representative has no container
    // ports, so the decider cannot resolve `http`: ktl says so in a section of its own.
    const { list, exposure } = run("exposure_test_egress_with_named_port");
    const text = formatExposure(list, exposure, "txt");
    expect(text).not.toContain("TCP http");
    expect(text).toContain("Not judged (the decider was not asked):\negress on named ports (http)");
    expect(JSON.parse(formatExposure(list, exposure, "json")).unjudged).toHaveLength(1);
  });
});

describe("exposure: the decider's answers", () => {
  const yaml = (policy: string) => `
apiVersion: v1
kind: Namespace
metadata: {name: hello-world}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: a, namespace: hello-world}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: x}]}
---
${policy}`;
  const exposureOf = (text: string) => {
    const model = loadModel([{ name: "in.yaml", text }]);
    return computeExposure(model, computeConnlist(model));
  };

  it("follows the profile: under flannel nothing is protected and the entire cluster gets everything", () => {
    const text = yaml(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: hello-world}
spec: {podSelector: {}, policyTypes: [Ingress]}`);
    const enforced = exposureOf(text);
    expect(enforced.ingress).toEqual([]);
    expect(enforced.unprotected).toEqual(["hello-world/a[Deployment] is not protected on Egress"]);
    const flannel = exposureOf(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-flannel-cfg, namespace: kube-flannel}\n---\n${text}`,
    );
    expect(flannel.unprotected).toHaveLength(2);
    expect(flannel.ingress.map((l) => `${l.other} : ${l.conn}`)).toEqual([
      "0.0.0.0-255.255.255.255[External] : All Connections",
      "entire-cluster : All Connections",
    ]);
  });

  it("a selector no pod satisfies is named, never guessed", () => {
    const e = exposureOf(
      yaml(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: odd, namespace: hello-world}
spec:
  podSelector: {}
  ingress:
  - from:
    - podSelector:
        matchLabels: {role: x}
        matchExpressions: [{key: role, operator: NotIn, values: [x]}]`),
    );
    expect(e.unjudged.join("\n")).toMatch(/no pod satisfies its selectors/);
    expect(e.ingress).toEqual([]);
  });

  it("names representatives as upstream does", () => {
    const sel = (v: unknown) => parseLabelSelector(v);
    expect(
      representativeName({
        ns: sel({ matchLabels: { "kubernetes.io/metadata.name": "backend" } }),
        pod: sel({}),
      }),
    ).toBe("backend/[all pods]");
    expect(representativeName({ ns: sel({}), pod: sel({ matchLabels: { role: "m", app: "x" } }) })).toBe(
      "[all namespaces]/[pod with {app=x,role=m}]",
    );
  });
});
