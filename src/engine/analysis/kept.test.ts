import { describe, expect, it } from "vitest";
import { FLOW_FIELDS, Kept, KeptAnswer, sameFlow } from "./kept.ts";
import { openAnalysis } from "./index.ts";
import type { Flow } from "./types.ts";
// @ts-expect-error the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";

const full: Required<Flow> = {
  id: "workload|pod:a/x|service:a/web|80/TCP",
  kind: "service",
  from: ["pod:a/x", "pod:a/y"],
  to: "service:a/web",
  port: 80,
  protocol: "TCP",
  portName: "http",
  verdict: "partial",
  dropCause: "policy",
  reason: "NetworkPolicy admits x's pods at 1 of 2 ready endpoints",
  decidedBy: [{ kind: "NetworkPolicy", namespace: "a", name: "p", line: 3 }],
  traceTo: "service:a/web:80",
  client: "pod:a/x",
  l7: ["GET /api"],
  tier: "Admin",
  layer: "CiliumNetworkPolicy",
  weight: 0.5,
  match: "split rule 1: /*",
};

/** Another value of each field, of its type. */
const other = (k: keyof Flow): unknown => {
  const v = full[k];
  if (Array.isArray(v))
    return [...v.slice(0, -1), typeof v[0] === "string" ? "changed" : { ...v[0], line: 4 }];
  return typeof v === "number" ? v + 1 : `${v}-changed`;
};

describe("a kept flow is the previous one only when every field is the same", () => {
  it("equal copies are the same flow, and an absent field equals an undefined one", () => {
    expect(sameFlow(full, structuredClone(full))).toBe(true);
    const { client: _, ...without } = full;
    expect(sameFlow(without, { ...without, client: undefined } as unknown as Flow)).toBe(true);
  });

  it.each(Object.keys(FLOW_FIELDS) as (keyof Flow)[])("a change of %s is seen", (k) => {
    expect(sameFlow(full, { ...full, [k]: other(k) })).toBe(false);
    expect(sameFlow(full, { ...full, [k]: undefined } as unknown as Flow)).toBe(false);
  });
});

describe("Kept", () => {
  const byId = () =>
    new Kept<{ id: string; v: number }>(
      (x) => x.id,
      (a, b) => a.v === b.v,
    );
  const items = (...xs: [string, number][]) => xs.map(([id, v]) => ({ id, v }));

  it("keeps an equal item, at its place or moved, and takes a changed or new one", () => {
    const kept = byId();
    kept.round();
    const first = items(["a", 1], ["b", 2], ["c", 3], ["d", 4]).map((x) => kept.keep(x));
    kept.round();
    // A new item above shifts the rest; "c" changed; "a" moved to the end on its own.
    const next = items(["n", 0], ["b", 2], ["c", 9], ["d", 4], ["a", 1]);
    const out = next.map((x) => kept.keep(x));
    expect(out[0]).toBe(next[0]);
    expect(out[1]).toBe(first[1]);
    expect(out[2]).toBe(next[2]);
    expect(out[3]).toBe(first[3]);
    expect(out[4]).toBe(first[0]);
    // Only the last round is kept.
    kept.round();
    expect(kept.keep({ id: "c", v: 3 })).not.toBe(first[2]);
  });
});

describe("openAnalysis with `keep`", () => {
  const text = (generate("S") as { text: string }).text;
  const flows = (a: ReturnType<typeof openAnalysis>["analysis"]) => [...a.flows, ...(a.reach?.flows ?? [])];

  it("an edit that turns a few flows keeps the others as the very objects, and answers as from scratch", () => {
    const keep = new KeptAnswer();
    const before = openAnalysis([{ name: "c.yaml", text }], { keep }).analysis;
    expect(before.reach?.flows.length).toBeGreaterThan(100);
    // A label of one template: its pods change class, their flows change, the rest do not.
    const at = text.indexOf("\n        app: ");
    const edited = `${text.slice(0, at + 14)}renamed-${text.slice(at + 14)}`;
    const after = openAnalysis([{ name: "c.yaml", text: edited }], { keep }).analysis;
    const scratch = openAnalysis([{ name: "c.yaml", text: edited }]).analysis;
    const timeless = (a: typeof after) => ({ ...a, stats: { ...a.stats, millis: 0 } });
    expect(timeless(after)).toEqual(timeless(scratch));
    const old = new Set(flows(before));
    const same = flows(after).filter((f) => old.has(f));
    expect(same.length).toBeGreaterThan(flows(after).length / 2);
    expect(same.length).toBeLessThan(flows(after).length);
    // Without `keep`, nothing is shared.
    expect(flows(scratch).some((f) => old.has(f))).toBe(false);
  });
});
