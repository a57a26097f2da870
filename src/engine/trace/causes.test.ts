import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { causeText, isPolicyLayer, sourceAddressText, stepTitle, verdictMark } from "./render.ts";
import { traceRequest } from "./index.ts";
import type { HopCause, HopStep } from "./types.ts";

const scenario = (id: string) =>
  readFileSync(join(import.meta.dirname, "../../../scenarios", id, "manifests.yaml"), "utf8");
function trace(id: string, from: string, to: string) {
  const model = loadModel([{ name: "m.yaml", text: scenario(id) }]);
  return traceRequest(model, buildProxyIndex(model), from, to, "TCP");
}

// Each hop carries what decided it as data; consumers switch on it, never on `detail`.
describe("every hop names its cause as data", () => {
  it.each<[string, string, string, [HopStep, string, Partial<HopCause>][]]>([
    [
      "05-allow-one-caller-after-default-deny",
      "pod:shop/frontend",
      "service:shop/payments:80",
      [
        ["source", "info", { layer: "client", category: "pod" }],
        ["destination", "pass", { layer: "destination", category: "clusterIP", rule: { index: 0 } }],
        [
          "kube-proxy",
          "pass",
          { layer: "kube-proxy", category: "endpoints", action: "forward", endpoints: "cluster" },
        ],
        ["source address", "info", { layer: "kube-proxy", category: "no-masquerade" }],
        [
          "egress policy at source",
          "pass",
          { layer: "NetworkPolicy", direction: "egress", category: "not-isolated" },
        ],
        [
          "ingress policy at backend",
          "drop",
          {
            layer: "NetworkPolicy",
            direction: "ingress",
            category: "denied",
            policies: ["shop/default-deny-ingress", "shop/payments-from-orders"],
          },
        ],
      ],
    ],
    [
      "05-allow-one-caller-after-default-deny",
      "pod:shop/orders",
      "service:shop/payments:80",
      [
        ["source", "info", { layer: "client" }],
        ["destination", "pass", { layer: "destination" }],
        ["kube-proxy", "pass", { layer: "kube-proxy" }],
        ["source address", "info", { layer: "kube-proxy" }],
        ["egress policy at source", "pass", { layer: "NetworkPolicy" }],
        [
          "ingress policy at backend",
          "pass",
          {
            layer: "NetworkPolicy",
            category: "allowed",
            object: { kind: "NetworkPolicy", namespace: "shop", name: "payments-from-orders" },
            rule: { index: 0 },
          },
        ],
      ],
    ],
    [
      "04-drop-calls-with-no-local-endpoint",
      "pod:default/client",
      "service:default/nginx-sample-svc:80",
      [
        ["source", "info", { layer: "client" }],
        ["destination", "pass", { layer: "destination", category: "clusterIP" }],
        [
          "kube-proxy",
          "drop",
          { layer: "kube-proxy", category: "endpoints", action: "drop", endpoints: "none" },
        ],
      ],
    ],
    [
      "16-resolve-headless-and-externalname",
      "pod:app/client",
      "service:app/billing:80",
      [
        ["source", "info", { layer: "client" }],
        [
          "dns",
          "pass",
          { layer: "DNS", category: "externalName-in-cluster", target: "billing.finance.svc.cluster.local" },
        ],
        [
          "destination",
          "pass",
          { layer: "destination", object: { kind: "Service", namespace: "finance", name: "billing" } },
        ],
        ["kube-proxy", "pass", { layer: "kube-proxy" }],
        ["source address", "info", { layer: "kube-proxy" }],
        ["egress policy at source", "pass", { layer: "NetworkPolicy" }],
        ["ingress policy at backend", "pass", { layer: "NetworkPolicy" }],
      ],
    ],
  ])("%s: %s -> %s", (id, from, to, want) => {
    const t = trace(id, from, to);
    expect(t.hops.map((h) => h.step)).toEqual(want.map((w) => w[0]));
    want.forEach(([, verdict, cause], i) => {
      expect(t.hops[i]).toMatchObject({ verdict, cause });
    });
  });

  it("a policy drop is a policy layer, a kube-proxy drop is not", () => {
    const policy = trace(
      "05-allow-one-caller-after-default-deny",
      "pod:shop/frontend",
      "service:shop/payments:80",
    );
    const proxy = trace(
      "04-drop-calls-with-no-local-endpoint",
      "pod:default/client",
      "service:default/nginx-sample-svc:80",
    );
    const dropped = (t: typeof policy) => t.hops.find((h) => h.verdict === "drop")!.cause.layer;
    expect([isPolicyLayer(dropped(policy)), isPolicyLayer(dropped(proxy))]).toEqual([true, false]);
  });
});

describe("the renderer", () => {
  // The titles are the contract's `hops[].step` strings (shared/contract/ktl-cli.md): every front end prints these.
  it.each<HopStep>([
    "source",
    "destination",
    "dns",
    "load balancer",
    "load balancer health check",
    "loadBalancerSourceRanges",
    "kube-proxy",
    "session affinity",
    "source address",
    "egress policy at source",
    "ingress policy at backend",
  ])("step %s is titled as the contract spells it", (step) => {
    expect(stepTitle(step)).toBe(step);
  });
  it.each<[HopCause, string]>([
    [
      {
        layer: "NetworkPolicy",
        direction: "ingress",
        category: "allowed",
        object: { kind: "NetworkPolicy", namespace: "shop", name: "allow" },
        rule: { index: 1 },
      },
      "NetworkPolicy shop/allow ingress rule 2 allows",
    ],
    [
      { layer: "NetworkPolicy", direction: "egress", category: "denied", policies: ["shop/deny"] },
      "egress isolated by shop/deny: no rule allows",
    ],
    [
      {
        layer: "kube-proxy",
        category: "endpoints",
        object: { kind: "Service", namespace: "shop", name: "web" },
        node: "node-a",
        action: "drop",
        endpoints: "none",
      },
      "kube-proxy on node-a endpoints (none endpoints): drop for Service shop/web",
    ],
    [
      {
        layer: "AdminNetworkPolicy",
        direction: "ingress",
        category: "Deny",
        object: { kind: "AdminNetworkPolicy", name: "guard" },
        rule: { index: 0, name: "deny-all" },
      },
      "Admin tier: Deny by AdminNetworkPolicy guard ingress rule 1 (deny-all)",
    ],
  ])("words %j", (cause, text) => {
    expect(causeText(cause)).toBe(text);
  });
  it("marks verdicts for text output", () => {
    expect([verdictMark("pass"), verdictMark("drop"), verdictMark("info")]).toEqual(["ok", "DROP", "--"]);
  });
});

describe("the source address sentence (CLI and details panel)", () => {
  const ep = (ip: string, sourceIP: string, sourceIPPreserved: boolean) => ({
    ip,
    port: 8080,
    sourceIP,
    sourceIPPreserved,
  });
  it.each([
    ["no backend", [], undefined],
    ["all keep the client's", [ep("10.0.0.1", "10.0.1.9", true)], "10.0.1.9 (the client's own address)"],
    [
      "all masqueraded",
      [ep("10.0.0.1", "192.168.0.2", false), ep("10.0.0.2", "192.168.0.2", false)],
      "192.168.0.2 (masqueraded: not the client's address)",
    ],
    [
      // Hairpin: only the sender itself, as a backend, sees the node's address (lesson 21 with 2 replicas).
      "hairpin: 1 of 2",
      [ep("10.0.0.1", "192.168.0.2", false), ep("10.0.0.2", "10.0.0.1", true)],
      "1 of 2 backends (10.0.0.1:8080) sees 192.168.0.2, masqueraded; the other sees the client's own address 10.0.0.1",
    ],
  ])("%s", (_what, endpoints, want) => {
    expect(sourceAddressText({ endpoints })).toBe(want);
  });
});

describe("session affinity is per node", () => {
  // Each kube-proxy keeps its own affinity record (iptables' recent module, nftables' affinity sets,
  // IPVS persistence): pkg/proxy/iptables/proxier.go writeServiceToEndpointRules (--rcheck per node).
  it("the hop names the node whose kube-proxy remembers the client", () => {
    const t = trace("13-pin-clients-with-session-affinity", "pod:shop/web", "service:shop/sessions:80");
    const hop = t.hops.find((h) => h.step === "session affinity");
    expect(hop?.detail).toContain(`through ${t.handledBy}'s kube-proxy`);
    expect(hop?.detail).toContain("through another node the client may land on another endpoint");
  });
});
