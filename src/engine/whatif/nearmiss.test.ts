/**
 * A near miss's edit is a what-if action: applied to the text it changes the
 * one line it names (every other byte kept), and the request traced again
 * over the edited text is allowed. One case per near-miss kind that has a
 * one-line edit: a NetworkPolicy peer's namespaceSelector or podSelector one
 * label off (the Namespace's or Pod's label), and a Service whose selector,
 * named targetPort or Local traffic policy leaves kube-proxy no endpoint
 * (EndpointSlice controller's SelectorFromSet and podutil.FindPort,
 * pkg/proxy/topology.go CategorizeEndpoints).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModel } from "../load/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { nearMissesOf } from "../trace/render.ts";
import { applyWhatIf, describeWhatIf } from "./index.ts";

const fixture = readFileSync(
  join(import.meta.dirname, "../../../scenarios/fixtures/why-frontend-cannot-reach-payments/manifests.yaml"),
  "utf8",
);

const NS = (name: string, labels = "{}") =>
  `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}, labels: ${labels}}`;
const POD = (ns: string, name: string, labels: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels: ${labels}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 5432}]}]}`;
const NP = (ingress: string) =>
  `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np, namespace: db}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n  ingress: ${ingress}`;

const nodes = `apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {addresses: [{type: InternalIP, address: 192.168.0.2}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {addresses: [{type: InternalIP, address: 192.168.0.3}]}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: shop}
spec: {nodeName: node-a, containers: [{name: c, image: x}]}`;
const web = (labels: string, ports: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: ${labels}}
  template:
    metadata:
      labels: ${labels}
    spec:
      nodeName: node-b
      containers: [{name: c, image: x, ports: ${ports}}]`;
const svc = (spec: string) => `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
${spec}`;

function trace(text: string, from: string, to: string) {
  const model = loadModel([{ name: "m.yaml", text }]);
  return traceRequest(model, buildProxyIndex(model), from, to);
}

describe("a near miss's edit, run as a what-if, allows the request", () => {
  it.each([
    [
      "issue 14's scenario: namespace web labelled team: web (it has team: storefront)",
      fixture,
      "pod:web/frontend-5z9smncpq2-prk7w",
      "service:payments/payments:8443",
      "set label team: web on Namespace web",
      "    team: web",
    ],
    [
      "issue 14's DNS mistake: kube-system gets the label name: kube-system it lacks (no labels at all)",
      fixture,
      "pod:payments/payments-k79vf8n2xv-2nps5",
      "service:checkout/checkout:80",
      "set label name: kube-system on Namespace kube-system",
      "    name: kube-system",
    ],
    [
      "a podSelector one label off: the Pod's label",
      [
        NS("db"),
        POD("db", "pg", "{app: pg}"),
        POD("db", "api", "{app: apo}"),
        NP("[{from: [{podSelector: {matchLabels: {app: api}}}]}]"),
      ].join("\n---\n"),
      "pod:db/api",
      "pod:db/pg:5432",
      "set label app: api on Pod db/api",
      '  labels: {app: "api"}',
    ],
    [
      "a Service selector one label off: the selector's value",
      [
        nodes,
        web("{app: webapp, tier: front}", "[{name: http, containerPort: 8080}]"),
        svc("  selector: {app: web, tier: front}\n  ports: [{port: 80, targetPort: http}]"),
      ].join("\n---\n"),
      "pod:shop/client",
      "service:shop/web:80",
      "set spec.selector.app: webapp in Service shop/web",
      '  selector: {app: "webapp", tier: front}',
    ],
    [
      "a targetPort name the pods do not declare: theirs",
      [
        nodes,
        web("{app: web}", "[{name: web, containerPort: 8080}]"),
        svc("  selector: {app: web}\n  ports:\n    - port: 80\n      targetPort: http"),
      ].join("\n---\n"),
      "pod:shop/client",
      "service:shop/web:80",
      "set spec.ports[0].targetPort: web in Service shop/web",
      "      targetPort: web",
    ],
    [
      "internalTrafficPolicy Local with the endpoint on another node: Cluster",
      [
        nodes,
        web("{app: web}", "[{containerPort: 8080}]"),
        svc(
          "  selector: {app: web}\n  internalTrafficPolicy: Local\n  ports: [{port: 80, targetPort: 8080}]",
        ),
      ].join("\n---\n"),
      "pod:shop/client",
      "service:shop/web:80",
      "set spec.internalTrafficPolicy: Cluster in Service shop/web",
      "  internalTrafficPolicy: Cluster",
    ],
  ])("%s", (_what, text, from, to, label, line) => {
    const before = trace(text, from, to);
    expect(before.verdict).toBe("drop");
    const m = nearMissesOf(before.hops).find((x) => x.edit);
    expect(m?.edit).toBeDefined();
    const edit = m!.edit!;
    expect(describeWhatIf(edit)).toBe(label);
    // Where it edits: the file, the YAML document and the line of the object it changes.
    const docs = text.split(/^---$/m);
    expect(edit.at.file).toBe("m.yaml");
    expect(docs[edit.at.doc]).toContain(`name: ${edit.target.name}`);
    const r = applyWhatIf(text, edit, { file: "m.yaml" });
    expect(r.error).toBeUndefined();
    expect(r.changed).toBe(true);
    expect(r.edits).toHaveLength(1);
    expect(r.text.split("\n")).toContain(line);
    // Every other line is kept: the edit changes the lines it names and adds at most the label's key.
    const a = text.split("\n");
    const b = r.text.split("\n");
    expect(b.length - a.length).toBeLessThanOrEqual(2);
    expect(b.filter((l) => !a.includes(l)).length).toBeLessThanOrEqual(2);
    const after = trace(r.text, from, to);
    expect(after.verdict).toBe("allow");
    // Applied twice, nothing more to do.
    expect(applyWhatIf(r.text, edit, { file: "m.yaml" }).changed).toBe(false);
  });

  it("an edit whose object is gone is refused with a sentence, the text unchanged", () => {
    const before = trace(fixture, "pod:web/frontend-5z9smncpq2-prk7w", "service:payments/payments:8443");
    const edit = nearMissesOf(before.hops).find((x) => x.edit)!.edit!;
    const text = fixture.replace("  name: web\n  labels:\n    team: storefront\n", "  name: webshop\n");
    const r = applyWhatIf(text, edit);
    expect(r.changed).toBe(false);
    expect(r.text).toBe(text);
    expect(r.error).toBe("no Namespace web in the input to label");
  });
});
