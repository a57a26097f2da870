/** Ask by workload (issue 14 item 5): every pod of a workload traced, the aggregate, and one representative trace. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "./index.ts";
import { traceWorkload, workloadPods } from "./workload.ts";

const scenario = (id: string) =>
  readFileSync(join(import.meta.dirname, "../../../scenarios", id, "manifests.yaml"), "utf8");
function open(id: string) {
  const model = loadModel([{ name: "m.yaml", text: scenario(id) }]);
  return { model, index: buildProxyIndex(model) };
}

describe("a workload as the source or the destination", () => {
  it.each([
    // The shop: backend-0 runs beside the cache, backend-1 does not (internalTrafficPolicy Local): some are allowed.
    [
      "01-trace-a-shop-across-zones",
      "workload:shop/backend",
      "service:shop/cache:6379",
      "partial",
      "1 of the 2 pods of StatefulSet shop/backend is allowed, 1 is not: the pods differ",
      "pod:shop/backend-1",
    ],
    [
      "01-trace-a-shop-across-zones",
      "workload:shop/StatefulSet/frontend",
      "service:shop/backend:80",
      "allow",
      "all 2 pods of StatefulSet shop/frontend are allowed",
      "pod:shop/frontend-0",
    ],
    [
      "fixtures/why-frontend-cannot-reach-payments",
      "workload:web/frontend",
      "service:payments/payments:8443",
      "drop",
      "none of the 2 pods of Deployment web/frontend are allowed",
      "pod:web/frontend-5z9smncpq2-prk7w",
    ],
    [
      "01-trace-a-shop-across-zones",
      "pod:tools/toolbox",
      "workload:shop/backend:8080",
      "drop",
      "none of the 2 pods of StatefulSet shop/backend (as destinations) are allowed",
      "pod:tools/toolbox",
    ],
  ])("%s: %s -> %s is %s", (id, from, to, verdict, summary, repFrom) => {
    const { model, index } = open(id);
    const w = traceWorkload(model, index, from, to);
    expect(w.error).toBeUndefined();
    expect(w.verdict).toBe(verdict);
    expect(w.summary).toBe(summary);
    expect(w.representative.from).toBe(repFrom);
    // Each pair is the trace's own answer, and the representative's full trace is that pair's.
    for (const p of w.pairs) expect(p.verdict).toBe(traceRequest(model, index, p.from, p.to).verdict);
    expect(w.trace).toEqual(traceRequest(model, index, w.representative.from, w.representative.to));
    if (verdict === "partial") expect(w.trace.verdict).not.toBe("allow");
  });

  it.each([
    ["workload:shop/nothing", "service:shop/backend:80", "no workload shop/nothing with pods in the input"],
    [
      "workload:shop",
      "service:shop/backend:80",
      "expected workload:NAMESPACE/NAME or workload:NAMESPACE/KIND/NAME",
    ],
    ["workload:shop/Deployment/backend", "service:shop/backend:80", "no workload shop/Deployment/backend"],
    ["pod:tools/toolbox", "workload:shop/backend", "a workload destination needs a port"],
  ])("%s -> %s: %s", (from, to, error) => {
    const { model, index } = open("01-trace-a-shop-across-zones");
    const w = traceWorkload(model, index, from, to);
    expect(w.error).toContain(error);
    expect(w.trace.error).toBe(w.error);
  });

  it("the kind tells apart two owners of one name", () => {
    const { model } = open("01-trace-a-shop-across-zones");
    const w = workloadPods(model, "shop/statefulset/backend");
    expect("pods" in w && w.pods.map((p) => p.key)).toEqual(["shop/backend-0", "shop/backend-1"]);
  });
});
