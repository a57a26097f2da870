/**
 * The graph tells a drop by a cluster tier from a drop by NetworkPolicy (its
 * own category and a label naming the tier, issue 15 item 4), and filters
 * edges by the layer that decided them. The engine says which layer decided
 * (Flow.tier, Flow.layer, decidedBy); the graph only shows it.
 */
import { describe, expect, it } from "vitest";
import { analyzeText } from "../engine/analysis/index.ts";
import { buildGraph } from "./build.ts";
import type { GraphModel } from "./model.ts";
import { categoryOf, type LayerFilter } from "./verdicts.ts";
import type { Filters } from "../store/types.ts";

const TEXT = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: v1
kind: Namespace
metadata: {name: dev, labels: {team: dev}}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop, labels: {app: api}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: dev, labels: {app: tool}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-all, namespace: shop}
spec: {podSelector: {}, ingress: [{}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: dev}
spec: {podSelector: {}, policyTypes: [Ingress]}
---
apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: no-dev}
spec:
  tier: Admin
  priority: 10
  subject: {namespaces: {matchLabels: {team: shop}}}
  ingress:
  - {name: deny-dev, action: Deny, from: [{namespaces: {matchLabels: {team: dev}}}]}
`;

const a = analyzeText(TEXT);
const graph = (lens: "paths" | "topology", layer?: LayerFilter): GraphModel => {
  const filters: Filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };
  if (layer) filters.layer = layer;
  return buildGraph(a, { filters, grouping: "pod", lens, open: {}, budget: 60 });
};
const edge = (g: GraphModel, from: string, to: string) =>
  g.edges.find((e) => e.source.endsWith(from) && e.target.endsWith(to));

describe("tier-dropped edges", () => {
  for (const lens of ["paths", "topology"] as const)
    it(`${lens}: an Admin Deny's edge is the tier category, its label names the tier; a NetworkPolicy drop is not`, () => {
      const g = graph(lens);
      const admin = edge(g, "dev/tool", "shop/api")!;
      expect(admin).toMatchObject({ verdict: "drop", dropCause: "policy", tier: "Admin" });
      expect(admin.label).toMatch(/^Admin ✕ · /);
      expect(admin.label).toContain("no-dev");
      expect(categoryOf(admin.verdict, admin.dropCause, admin.tier).id).toBe("tier");
      const np = edge(g, "shop/web", "dev/tool")!;
      expect(np).toMatchObject({ verdict: "drop", dropCause: "policy" });
      expect(np.tier).toBeUndefined();
      expect(np.label).not.toContain("✕");
      expect(categoryOf(np.verdict, np.dropCause, np.tier).id).toBe("drop");
    });

  for (const lens of ["paths", "topology"] as const)
    it(`${lens}: the Decided by filter keeps the edges its layer decided`, () => {
      const pairs = (layer?: LayerFilter) =>
        graph(lens, layer)
          .edges.map((e) => `${e.source.replace(/^.*pod:/, "")}>${e.target.replace(/^.*pod:/, "")}`)
          .sort();
      expect(pairs("Admin")).toEqual(["dev/tool>shop/api", "dev/tool>shop/web"]);
      expect(pairs("Baseline")).toEqual([]);
      // shop's allow-all admits shop to shop, dev's deny-all drops both of shop's pods.
      expect(pairs("NetworkPolicy")).toEqual([
        "shop/api>dev/tool",
        "shop/api>shop/web",
        "shop/web>dev/tool",
        "shop/web>shop/api",
      ]);
      expect(pairs("all").length).toBe(6);
      expect(pairs()).toEqual(pairs("all"));
    });
});
