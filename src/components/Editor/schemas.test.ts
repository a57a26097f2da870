/** The editor schema accepts each kind under its own API group, and gives the new kinds' main fields hover text. */
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import { KUBERNETES_SCHEMA } from "./schemas.ts";

const validate = new Ajv({ strict: false, allErrors: true }).compile(KUBERNETES_SCHEMA);

describe("editor schema", () => {
  it.each([
    [
      "Kubernetes NetworkPolicy",
      { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", spec: { podSelector: {} } },
    ],
    [
      "Calico NetworkPolicy",
      {
        apiVersion: "projectcalico.org/v3",
        kind: "NetworkPolicy",
        spec: { selector: "app == 'db'", ingress: [{ action: "Pass" }] },
      },
    ],
    [
      "Calico Tier",
      { apiVersion: "projectcalico.org/v3", kind: "Tier", spec: { order: 100, defaultAction: "Pass" } },
    ],
    [
      "CiliumNetworkPolicy",
      {
        apiVersion: "cilium.io/v2",
        kind: "CiliumNetworkPolicy",
        spec: {
          endpointSelector: {},
          ingress: [
            {
              fromEntities: ["world"],
              toPorts: [{ ports: [{ port: "80", protocol: "TCP" }], rules: { http: [{ method: "GET" }] } }],
            },
          ],
        },
      },
    ],
    [
      "HTTPRoute v1",
      {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        spec: { rules: [{ backendRefs: [{ name: "a", port: 80, weight: 90 }] }] },
      },
    ],
    [
      "VirtualService v1beta1",
      {
        apiVersion: "networking.istio.io/v1beta1",
        kind: "VirtualService",
        spec: {
          hosts: ["r"],
          http: [{ route: [{ destination: { host: "r", subset: "v1" }, weight: 100 }] }],
        },
      },
    ],
    [
      "ClusterNetworkPolicy",
      {
        apiVersion: "policy.networking.k8s.io/v1alpha2",
        kind: "ClusterNetworkPolicy",
        spec: { tier: "Admin", priority: 10 },
      },
    ],
  ])("accepts a %s", (_, doc) => {
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    [
      "a Tier action that Calico does not have",
      { apiVersion: "projectcalico.org/v3", kind: "Tier", spec: { defaultAction: "Allow" } },
    ],
    ["a Gateway in another group", { apiVersion: "cilium.io/v2", kind: "Gateway" }],
    [
      "an Ingress pathType typo",
      {
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        spec: { rules: [{ http: { paths: [{ path: "/", pathType: "prefix" }] } }] },
      },
    ],
  ])("flags %s", (_, doc) => {
    expect(validate(doc)).toBe(false);
  });

  it("documents the main fields of each new kind (hover text)", () => {
    const text = JSON.stringify(KUBERNETES_SCHEMA);
    for (const words of [
      "L7 HTTP rules",
      "Pass (to the next tier)",
      "weight over the sum",
      "element-wise",
      "the first match wins",
      "deny wins",
    ])
      expect(text).toContain(words);
  });
});
