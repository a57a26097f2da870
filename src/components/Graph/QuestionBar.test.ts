/**
 * The question bar's choices are kept by the pods, Services and workloads they word (an edit's answer keeps the
 * unchanged ones as the objects the page held): an answer sharing objects with the last one must offer what a
 * fresh copy of it offers.
 */
import { describe, expect, it } from "vitest";
import { analyzeText, type Analysis } from "../../engine/analysis/index.ts";
import { choices } from "./QuestionBar.tsx";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";

const S: Analysis = analyzeText((generate("S") as { text: string }).text);
const fresh = (a: Analysis) => choices(structuredClone(a));
const labels = (c: ReturnType<typeof choices>) =>
  [...c.sources, ...c.destinations].flatMap(([, l]) =>
    l.map((x) => `${x.value}|${x.label}|${x.disabled ?? ""}`),
  );

describe("the question bar's choices", () => {
  it("are the same for the same answer asked twice and for a fresh copy of it", () => {
    expect(choices(S)).toEqual(fresh(S));
    expect(choices(S)).toEqual(fresh(S));
  });

  it("follow a workload's pod count and the engine's capabilities on objects kept from the last answer", () => {
    const before = choices(S);
    // A replica fewer: the workload's pods are the kept objects but one.
    const w = S.pods.find(
      (p) => p.workload.kind !== "Pod" && S.pods.filter((q) => q.workload.id === p.workload.id).length > 2,
    )!.workload;
    const gone = S.pods.findIndex((p) => p.workload.id === w.id);
    const fewer: Analysis = { ...S, pods: S.pods.filter((_, i) => i !== gone) };
    const after = choices(fewer);
    expect(after).toEqual(fresh(fewer));
    expect(labels(after)).not.toEqual(labels(before));
    // Without the kube-proxy engine, workloads, nodes and Service ports are offered but disabled, kept objects too.
    const podsOnly: Analysis = { ...S, capabilities: { serviceTraces: false } };
    expect(choices(podsOnly)).toEqual(fresh(podsOnly));
    expect(labels(choices(podsOnly))).not.toEqual(labels(choices(S)));
  });
});
