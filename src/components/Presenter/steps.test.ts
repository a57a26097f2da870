import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { graphIdOf, presenterKey, presenterSteps } from "./steps.ts";
import { buildProxyIndex, loadModel, traceRequest } from "../../engine/index.ts";

const scenario = (id: string) =>
  readFileSync(join(import.meta.dirname, "../../../scenarios", id, "manifests.yaml"), "utf8");
function traced(id: string, from: string, to: string) {
  const model = loadModel([{ name: "m.yaml", text: scenario(id) }]);
  return traceRequest(model, buildProxyIndex(model), from, to, "TCP");
}

describe("presenter steps", () => {
  it("one step per hop, each focused on the graph elements it is about", () => {
    const q = { from: "external:203.0.113.10@node-b", to: "service:shop/web:80" };
    const t = traced("12-serve-from-terminating-pods", q.from, q.to);
    const steps = presenterSteps(q, t);
    expect(steps.map((s) => s.title)).toEqual(t.hops.map((h) => h.step));
    const by = (title: string) => steps.find((s) => s.title === title)!;
    expect(by("source").focus).toEqual(["external:203.0.113.10", "node:node-b"]);
    expect(by("load balancer health check").focus).toEqual([
      "external:203.0.113.10",
      "node:node-b",
      "service:shop/web",
    ]);
    expect(by("kube-proxy").focus).toEqual([
      "service:shop/web",
      "node:node-b",
      "pod:shop/web-7d4b9c6f5-x2v8q",
    ]);
    expect(by("ingress policy at backend").focus).toEqual(["pod:shop/web-7d4b9c6f5-x2v8q"]);
    expect(steps.map((s) => s.number)).toEqual(steps.map((_, i) => i + 1));
  });

  it("a dropped hop is marked drop, with the line that decided", () => {
    const q = { from: "pod:default/client", to: "service:default/nginx-sample-svc:80" };
    const steps = presenterSteps(q, traced("04-drop-calls-with-no-local-endpoint", q.from, q.to));
    const last = steps[steps.length - 1]!;
    expect(last).toMatchObject({ title: "kube-proxy", verdict: "drop" });
    expect(last.ref).toMatchObject({ kind: "Service", name: "nginx-sample-svc" });
    expect(last.focus).toContain("service:default/nginx-sample-svc");
    expect(last.focus).toContain("node:aks-nodepool1-23236778-vmss000002");
  });

  it("graph ids of trace endpoints", () => {
    expect(graphIdOf("service:shop/web:80")).toBe("service:shop/web");
    expect(graphIdOf("pod:shop/web-0:8080")).toBe("pod:shop/web-0");
    expect(graphIdOf("external:203.0.113.10@node-a")).toBe("external:203.0.113.10");
    expect(graphIdOf("node:node-a")).toBe("node:node-a");
  });
});

describe("presenter keys", () => {
  it.each([
    ["ArrowRight", 0, 5, 1],
    ["ArrowRight", 4, 5, 4],
    [" ", -1, 5, 0],
    ["ArrowLeft", 0, 5, -1],
    ["ArrowLeft", -1, 5, -1],
    ["Home", 3, 5, -1],
    ["End", 0, 5, 4],
    ["r", 2, 5, "reset"],
    ["Escape", 2, 5, "exit"],
    ["x", 2, 5, undefined],
  ] as const)("%s at %i of %i -> %s", (key, cur, n, want) => {
    expect(presenterKey(key, cur, n)).toBe(want);
  });
});
