import { describe, expect, it } from "vitest";
import { inputRecord, strMap } from "./values.ts";
import { loadModel } from "../index.ts";
import { matchesSelector } from "../model/labels.ts";

describe("records keyed by input (labels, annotations, selectors' maps)", () => {
  it("show no key of Object.prototype, and take __proto__ and constructor as plain keys", () => {
    const r = inputRecord<string>();
    expect("constructor" in r).toBe(false);
    expect("toString" in r).toBe(false);
    expect((r as Record<string, unknown>).hasOwnProperty).toBeUndefined();
    r["__proto__"] = "a";
    r["constructor"] = "b";
    expect(Object.keys(r)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(inputRecord())).toBe(Object.getPrototypeOf(r));
    const m = strMap(JSON.parse('{"__proto__": "x", "toString": "y"}'));
    expect(Object.entries(m)).toEqual([
      ["__proto__", "x"],
      ["toString", "y"],
    ]);
  });

  it("let no selector match a pod by a key the pod does not have", () => {
    const model = loadModel([
      {
        name: "t.yaml",
        text: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\n",
      },
    ]);
    const labels = model.pods[0]!.labels;
    const exists = (key: string) => ({
      matchLabels: {},
      matchExpressions: [{ key, operator: "Exists" as const, values: [] }],
      key: `${key} exists`,
    });
    expect(matchesSelector(exists("app") as never, labels)).toBe(true);
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(matchesSelector(exists(key) as never, labels), key).toBe(false);
  });
});
