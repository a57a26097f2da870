/**
 * The cluster tiers' CRD validation (validate/tiers.ts), one case per schema
 * or CEL rule of network-policy-api's CRDs (ClusterNetworkPolicy v1alpha2 at
 * 0eec1b0e, AdminNetworkPolicy/BaselineAdminNetworkPolicy v1alpha1 at
 * v0.1.7), each with a valid counterpart; and lint KTL611.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { validateModel } from "./index.ts";

const cnp = (spec: string, name = "p") =>
  `apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
const anp = (spec: string, name = "p") =>
  `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
const banp = (spec: string, name = "default") =>
  `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
const SUBJ = "subject: {namespaces: {}}";
const rulesOf = (n: number, action = "Deny") =>
  `[${Array.from({ length: n }, () => `{action: ${action}, from: [{namespaces: {}}]}`).join(", ")}]`;

function run(yaml: string, lint = false) {
  return validateModel(loadModel([{ name: "t.yaml", text: yaml }]), { lint });
}

describe("ClusterNetworkPolicy / AdminNetworkPolicy / BaselineAdminNetworkPolicy CRD validation", () => {
  it.each<[string, string, [string, string, string?][]]>([
    ["a valid CNP", cnp(`{tier: Admin, priority: 0, ${SUBJ}, ingress: ${rulesOf(1)}}`), []],
    ["tier is required", cnp(`{priority: 1, ${SUBJ}}`), [["spec.tier", "Required value"]]],
    [
      "tier enum Admin, Baseline",
      cnp(`{tier: Middle, priority: 1, ${SUBJ}}`),
      [["spec.tier", "Unsupported value", 'supported values: "Admin", "Baseline"']],
    ],
    ["priority is required", cnp(`{tier: Admin, ${SUBJ}}`), [["spec.priority", "Required value"]]],
    [
      "priority at most 1000",
      cnp(`{tier: Admin, priority: 1001, ${SUBJ}}`),
      [["spec.priority", "Invalid value", "should be less than or equal to 1000"]],
    ],
    ["priority 1000 is valid", cnp(`{tier: Admin, priority: 1000, ${SUBJ}}`), []],
    [
      "priority at least 0",
      cnp(`{tier: Baseline, priority: -1, ${SUBJ}}`),
      [["spec.priority", "Invalid value", "should be greater than or equal to 0"]],
    ],
    ["subject is required", cnp(`{tier: Admin, priority: 1}`), [["spec.subject", "Required value"]]],
    [
      "exactly one subject field (maxProperties 1)",
      cnp(`{tier: Admin, priority: 1, subject: {namespaces: {}, pods: {podSelector: {}}}}`),
      [["spec.subject", "Too many"]],
    ],
    [
      "exactly one subject field (minProperties 1)",
      cnp(`{tier: Admin, priority: 1, subject: {}}`),
      [["spec.subject", "Invalid value", "should have at least 1 properties"]],
    ],
    [
      "at most 25 ingress rules",
      cnp(`{tier: Admin, priority: 1, ${SUBJ}, ingress: ${rulesOf(26)}}`),
      [["spec.ingress", "Too many", "must have at most 25 items"]],
    ],
    ["25 rules are valid", cnp(`{tier: Admin, priority: 1, ${SUBJ}, ingress: ${rulesOf(25)}}`), []],
    [
      "action enum Accept, Deny, Pass (v1alpha1's Allow is not one)",
      cnp(`{tier: Admin, priority: 1, ${SUBJ}, ingress: ${rulesOf(1, "Allow")}}`),
      [["spec.ingress[0].action", "Unsupported value", 'supported values: "Accept", "Deny", "Pass"']],
    ],
    [
      "action is required",
      cnp(`{tier: Admin, priority: 1, ${SUBJ}, ingress: [{from: [{namespaces: {}}]}]}`),
      [["spec.ingress[0].action", "Required value"]],
    ],
    [
      "from needs at least one peer",
      cnp(`{tier: Admin, priority: 1, ${SUBJ}, ingress: [{action: Deny, from: []}]}`),
      [["spec.ingress[0].from", "Invalid value", "should have at least 1 items"]],
    ],
    [
      "rule name at most 100 characters",
      cnp(
        `{tier: Admin, priority: 1, ${SUBJ}, ingress: [{name: ${"n".repeat(101)}, action: Deny, from: [{namespaces: {}}]}]}`,
      ),
      [["spec.ingress[0].name", "Too long", "may not be more than 100 bytes"]],
    ],
    [
      "networks must be CIDRs (CEL isCIDR)",
      cnp(`{tier: Admin, priority: 1, ${SUBJ}, egress: [{action: Deny, to: [{networks: [10.0.0.0/33]}]}]}`),
      [["spec.egress[0].to[0].networks[0]", "Invalid value", "Invalid CIDR format provided"]],
    ],
    [
      "a port range's start must be less than its end (CEL)",
      cnp(
        `{tier: Admin, priority: 1, ${SUBJ}, ingress: [{action: Deny, from: [{namespaces: {}}], protocols: [{tcp: {destinationPort: {range: {start: 90, end: 80}}}}]}]}`,
      ),
      [
        [
          "spec.ingress[0].protocols[0].tcp.destinationPort.range",
          "Invalid value",
          "Start port must be less than End port",
        ],
      ],
    ],
    [
      "a port number between 1 and 65535",
      cnp(
        `{tier: Admin, priority: 1, ${SUBJ}, ingress: [{action: Deny, from: [{namespaces: {}}], protocols: [{udp: {destinationPort: {number: 0}}}]}]}`,
      ),
      [
        [
          "spec.ingress[0].protocols[0].udp.destinationPort.number",
          "Invalid value",
          "greater than or equal to 1",
        ],
      ],
    ],
    [
      "a named port with a networks peer (experimental CEL rule)",
      cnp(
        `{tier: Admin, priority: 1, ${SUBJ}, egress: [{action: Deny, to: [{networks: [10.0.0.0/8]}], protocols: [{destinationNamedPort: web}]}]}`,
      ),
      [["spec.egress[0]", "Invalid value", "cannot be set with namedPorts"]],
    ],
    ["a valid ANP", anp(`{priority: 3, ${SUBJ}, ingress: ${rulesOf(1, "Allow")}}`), []],
    [
      "ANP: Accept is v1alpha2's word",
      anp(`{priority: 3, ${SUBJ}, ingress: ${rulesOf(1, "Accept")}}`),
      [["spec.ingress[0].action", "Unsupported value", 'supported values: "Allow", "Deny", "Pass"']],
    ],
    [
      "ANP: at most 100 rules",
      anp(`{priority: 3, ${SUBJ}, ingress: ${rulesOf(101, "Allow")}}`),
      [["spec.ingress", "Too many", "must have at most 100 items"]],
    ],
    [
      "ANP: pods needs namespaceSelector and podSelector",
      anp(`{priority: 3, subject: {pods: {podSelector: {}}}}`),
      [["spec.subject.pods.namespaceSelector", "Required value"]],
    ],
    ["a valid BANP", banp(`{${SUBJ}, ingress: ${rulesOf(1, "Deny")}}`), []],
    [
      "BANP: only Allow and Deny",
      banp(`{${SUBJ}, ingress: ${rulesOf(1, "Pass")}}`),
      [["spec.ingress[0].action", "Unsupported value", 'supported values: "Allow", "Deny"']],
    ],
    [
      "BANP: named default (CEL on the root)",
      banp(`{${SUBJ}}`, "other"),
      [["<nil>", "Invalid value", 'metadata.name="default"']],
    ],
  ])("%s", (_name, yaml, want) => {
    const errs = run(yaml).errors;
    expect(errs.map((e) => [e.field, e.type])).toEqual(want.map(([f, t]) => [f, t]));
    want.forEach(([, , detail], i) => {
      if (detail) expect(errs[i]!.detail).toContain(detail);
      expect(errs[i]!.namespace).toBeUndefined();
      expect(errs[i]!.line).toBeGreaterThan(0);
    });
  });

  it.each<[string, string, string[], string[]]>([
    [
      "v1alpha2: a destinationPort of undeclared fields only is pruned to {} (minProperties 1), and Strict rejects the field",
      cnp(
        `{tier: Admin, priority: 1, ${SUBJ}, ingress: [{action: Deny, from: [{namespaces: {}}], protocols: [{tcp: {destinationPort: {name: metrics}}}]}]}`,
      ),
      ["spec.ingress[0].protocols[0].tcp.destinationPort"],
      ["spec.ingress[0].protocols[0].tcp.destinationPort.name"],
    ],
    [
      "v1alpha1: a port entry of an undeclared field only (namedPorts for namedPort)",
      anp(
        `{priority: 3, ${SUBJ}, ingress: [{action: Allow, from: [{namespaces: {}}], ports: [{namedPorts: web}]}]}`,
      ),
      ["spec.ingress[0].ports[0]"],
      ["spec.ingress[0].ports[0].namedPorts"],
    ],
    [
      "an undeclared field beside a declared one: a warning only, the declared one stands",
      cnp(
        `{tier: Admin, priority: 1, subject: {namespaces: {}, namespace: {}}, egress: [{action: Deny, to: [{networks: [10.0.0.0/8], cidr: x}]}]}`,
      ),
      [],
      ["spec.subject.namespace", "spec.egress[0].to[0].cidr"],
    ],
    [
      "a valid policy has no unknown field",
      cnp(`{tier: Admin, priority: 0, ${SUBJ}, ingress: ${rulesOf(1)}}`),
      [],
      [],
    ],
  ])("%s", (_name, yaml, errors, unknown) => {
    const r = run(yaml);
    expect(r.errors.map((e) => e.field)).toEqual(errors);
    expect(r.warnings.filter((w) => w.code === "KTL510").map((w) => w.field)).toEqual(unknown);
  });

  it("leaves Antrea's crd.antrea.io ClusterNetworkPolicy alone (another API group)", () => {
    const yaml = `apiVersion: crd.antrea.io/v1beta1\nkind: ClusterNetworkPolicy\nmetadata: {name: a}\nspec: {priority: 5000}\n`;
    expect(run(yaml).errors).toEqual([]);
  });
});

describe("KTL611: one tier, one priority, one pod", () => {
  const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, labels: {app: a}}\nspec: {containers: [{name: c}]}\n`;
  it.each<[string, string[], number]>([
    [
      "a CNP and an ANP at Admin priority 5 that both select the pod",
      [
        cnp(`{tier: Admin, priority: 5, ${SUBJ}, ingress: ${rulesOf(1)}}`, "a"),
        anp(`{priority: 5, ${SUBJ}, ingress: ${rulesOf(1, "Allow")}}`, "b"),
      ],
      1,
    ],
    [
      "different priorities",
      [
        cnp(`{tier: Admin, priority: 5, ${SUBJ}, ingress: ${rulesOf(1)}}`, "a"),
        cnp(`{tier: Admin, priority: 6, ${SUBJ}, ingress: ${rulesOf(1)}}`, "b"),
      ],
      0,
    ],
    [
      "different tiers",
      [
        cnp(`{tier: Admin, priority: 5, ${SUBJ}, ingress: ${rulesOf(1)}}`, "a"),
        cnp(`{tier: Baseline, priority: 5, ${SUBJ}, ingress: ${rulesOf(1)}}`, "b"),
      ],
      0,
    ],
    [
      "subjects that select different pods",
      [
        cnp(`{tier: Admin, priority: 5, ${SUBJ}, ingress: ${rulesOf(1)}}`, "a"),
        cnp(
          `{tier: Admin, priority: 5, subject: {pods: {podSelector: {matchLabels: {app: z}}}}, ingress: ${rulesOf(1)}}`,
          "b",
        ),
      ],
      0,
    ],
    [
      "rules in different directions cannot match one connection's same side",
      [
        cnp(`{tier: Admin, priority: 5, ${SUBJ}, ingress: ${rulesOf(1)}}`, "a"),
        cnp(`{tier: Admin, priority: 5, ${SUBJ}, egress: [{action: Deny, to: [{namespaces: {}}]}]}`, "b"),
      ],
      0,
    ],
  ])("%s", (_name, docs, n) => {
    const w = run([pod, ...docs].join("---\n"), true).warnings.filter((x) => x.code === "KTL611");
    expect(w).toHaveLength(n);
    if (n) expect(w[0]!.detail).toContain("both select pod x/p");
  });
});
