import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildModel } from "../load/index.ts";
import { parseManifests } from "../parse/manifests.ts";
import { deciderOf } from "../decide/index.ts";
import { editForEdge } from "./edge.ts";

const text = readFileSync(
  new URL("../../../scenarios/fixtures/observed-vs-predicted/manifests.yaml", import.meta.url),
  "utf8",
);
const model = buildModel(parseManifests([{ name: "m.yaml", text }]));
const pod = (prefix: string) => model.pods.find((p) => p.key.startsWith(prefix))!.key;

// The decider is the judge: the edited text, parsed again, must give the asked verdict (decide/index.ts explain).
function verdictAfter(edited: string, src: string, dst: string, port: number) {
  const m = buildModel(parseManifests([{ name: "m.yaml", text: edited }]));
  const find = (k: string) => m.pods.find((p) => p.key === k)!;
  return deciderOf(m).explain(find(src), find(dst), port, "TCP").allowed;
}

describe("Allow this edge / Deny this edge: the smallest edit, proved by the decider", () => {
  it("allows a dropped pair (toolbox to backend on 8080, shop has a default deny) with the smallest edit, and the edited text allows it", () => {
    const src = pod("tools/toolbox");
    const dst = pod("shop/backend-");
    const e = editForEdge(
      { text, file: "m.yaml" },
      { from: `pod:${src}`, to: `pod:${dst}`, port: 8080, protocol: "TCP", want: "allow" },
    );
    expect(e.error).toBeUndefined();
    expect(e.changed).toBe(true);
    expect(e.proof).toMatchObject({ holds: true, before: { allowed: false }, after: { allowed: true } });
    expect(verdictAfter(e.text, src, dst, 8080)).toBe(true);
    // The input's text is kept byte for byte: the edit only adds.
    expect(e.text.startsWith(text)).toBe(true);
  });

  it("denies an allowed pair (frontend to the backend Service) with an AdminNetworkPolicy Deny rule, listing what else changes", () => {
    const src = pod("shop/frontend-");
    const e = editForEdge(
      { text, file: "m.yaml" },
      { from: `pod:${src}`, to: "service:shop/backend", port: 80, protocol: "TCP", want: "deny" },
    );
    expect(e.error).toBeUndefined();
    expect(e.added).toMatch(/kind: AdminNetworkPolicy/);
    expect(e.proof).toMatchObject({ holds: true, before: { allowed: true }, after: { allowed: false } });
    // Every frontend replica matches the same stable labels: the other replicas' pairs change too, and are listed.
    for (const c of e.proof!.alsoChanged) expect(c.allowed).toBe(false);
  });

  it.each([
    ["cilium", /kind: CiliumNetworkPolicy[\s\S]*enableDefaultDeny:\s+ingress: false[\s\S]*ingressDeny:/],
    ["cilium-kpr", /kind: CiliumNetworkPolicy[\s\S]*ingressDeny:/],
    ["calico", /kind: Tier[\s\S]*order: 100[\s\S]*tier: ktl-deny[\s\S]*action: Deny[\s\S]*action: Pass/],
  ] as const)(
    "under the %s profile, denies in the CNI's own dialect (Cilium has no Admin tier), and only that pair's replicas change",
    (cni, shape) => {
      const src = pod("shop/frontend-");
      const e = editForEdge(
        { text, file: "m.yaml", options: { cni } },
        { from: `pod:${src}`, to: "service:shop/backend", port: 80, protocol: "TCP", want: "deny" },
      );
      expect(e.error).toBeUndefined();
      expect(e.added).toMatch(shape);
      expect(e.added).not.toMatch(/AdminNetworkPolicy/);
      expect(e.proof).toMatchObject({ holds: true, before: { allowed: true }, after: { allowed: false } });
      // Nothing else is cut: the changed pairs are the frontend replicas' to the backend pods, all now dropped.
      for (const c of e.proof!.alsoChanged) {
        expect(c.allowed).toBe(false);
        expect(c.src).toMatch(/^shop\/frontend-/);
        expect(c.dst).toMatch(/^shop\/backend-/);
      }
    },
  );

  it("takes the near miss when one label makes an existing rule match (netpol/nearmiss.ts): a smaller edit than a new policy", () => {
    const near = [
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: db}",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pg\n  namespace: db\n  labels: {app: pg}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 5432}]}]}",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: api\n  namespace: db\n  labels: {app: apo}\nspec: {containers: [{name: c, image: x}]}",
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np, namespace: db}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n  ingress: [{from: [{podSelector: {matchLabels: {app: api}}}]}]",
    ].join("\n---\n");
    const e = editForEdge(
      { text: near, file: "m.yaml" },
      { from: "pod:db/api", to: "pod:db/pg", port: 5432, protocol: "TCP", want: "allow" },
    );
    expect(e).toMatchObject({ changed: true, how: "near-miss", proof: { holds: true } });
    expect(e.labelEdit).toMatchObject({ kind: "label", key: "app", value: "api" });
    expect(e.added).toBeUndefined();
    expect(verdictAfter(e.text, "db/api", "db/pg", 5432)).toBe(true);
  });

  it("says so when the pair already has the verdict asked, and changes nothing", () => {
    const src = pod("tools/toolbox");
    const dst = pod("shop/payments-");
    const e = editForEdge(
      { text, file: "m.yaml" },
      { from: src, to: dst, port: 8443, protocol: "TCP", want: "deny" },
    );
    expect(e).toMatchObject({ changed: false, how: "already", text });
  });

  it("an unknown pod is an error, not an exception", () => {
    const e = editForEdge(
      { text, file: "m.yaml" },
      { from: "shop/nothing", to: "shop/x", port: 1, protocol: "TCP", want: "allow" },
    );
    expect(e.error).toMatch(/no pod shop\/nothing/);
  });
});
