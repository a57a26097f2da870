/**
 * A later definition replaces an earlier one of the same kind (and API
 * group), namespace and name, for every kind, as `kubectl apply -f` of both
 * leaves the later (apply patches the live object with each in turn; the
 * last one's fields are what the cluster holds): one mechanism
 * (parseManifests), with KTL201 at the later one and the earlier listed in
 * `replaced`.
 */
import { describe, expect, it } from "vitest";
import { parseManifests } from "./manifests.ts";

const doc = (apiVersion: string, kind: string, name: string, ns: string | undefined, extra: string) =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: ${name}${ns ? `, namespace: ${ns}` : ""}}\n${extra}\n`;

describe("later definitions replace earlier ones, for every kind", () => {
  it.each([
    { kind: "Service", apiVersion: "v1", ns: "shop", list: "objects" },
    { kind: "NetworkPolicy", apiVersion: "networking.k8s.io/v1", ns: "shop", list: "objects" },
    // The issue's defect: the second VirtualService was dropped (first wins) where kubectl keeps the later.
    { kind: "VirtualService", apiVersion: "networking.istio.io/v1", ns: "shop", list: "ignored" },
    { kind: "HTTPRoute", apiVersion: "gateway.networking.k8s.io/v1", ns: "shop", list: "ignored" },
    { kind: "ConfigMap", apiVersion: "v1", ns: "shop", list: "ignored" },
    { kind: "CiliumClusterwideNetworkPolicy", apiVersion: "cilium.io/v2", ns: undefined, list: "objects" },
  ] as const)("$kind", ({ kind, apiVersion, ns, list }) => {
    const text = [
      doc(apiVersion, kind, "x", ns, "spec: {v: 1}"),
      doc(apiVersion, kind, "x", ns, "spec: {v: 2}"),
    ].join("---\n");
    const r = parseManifests([{ name: "a.yaml", text }]);
    const kept = r[list].filter((o) => o.kind === kind);
    expect(kept.map((o) => (o.raw.spec as { v: number }).v)).toEqual([2]);
    expect(r.diagnostics.filter((d) => d.code === "KTL201").map((d) => d.line)).toEqual([6]);
    expect(r.replaced).toEqual([
      expect.objectContaining({ kind, name: "x", line: 1, by: { file: "a.yaml", doc: 1, line: 6 } }),
    ]);
  });

  it.each([
    {
      name: "a namespace left out is default",
      a: doc("v1", "Service", "x", undefined, "spec: {}"),
      b: doc("v1", "Service", "x", "default", "spec: {}"),
      replaced: 1,
    },
    {
      name: "a cluster-scoped kind ignores a namespace written on it",
      a: doc("v1", "Namespace", "x", undefined, ""),
      b: doc("v1", "Namespace", "x", "y", ""),
      replaced: 1,
    },
    {
      name: "other namespaces are other objects",
      a: doc("v1", "Service", "x", "a", "spec: {}"),
      b: doc("v1", "Service", "x", "b", "spec: {}"),
      replaced: 0,
    },
    {
      // Calico's projectcalico.org NetworkPolicy is another resource than networking.k8s.io's.
      name: "another API group is another resource",
      a: doc("networking.k8s.io/v1", "NetworkPolicy", "x", "a", "spec: {}"),
      b: doc("projectcalico.org/v3", "NetworkPolicy", "x", "a", "spec: {}"),
      replaced: 0,
    },
    {
      name: "another version of the same group is the same resource",
      a: doc("networking.istio.io/v1beta1", "VirtualService", "x", "a", "spec: {}"),
      b: doc("networking.istio.io/v1", "VirtualService", "x", "a", "spec: {}"),
      replaced: 1,
    },
  ])("$name", ({ a, b, replaced }) => {
    const r = parseManifests([{ name: "a.yaml", text: `${a}---\n${b}` }]);
    expect(r.replaced?.length).toBe(replaced);
    expect(r.objects.length + r.ignored.length).toBe(2 - replaced);
  });
});
