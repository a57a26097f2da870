import { describe, expect, it } from "vitest";
import { failedRequirements, matchesSelector, parseLabelSelector } from "./labels.ts";

describe("parseLabelSelector", () => {
  it("gives one object for selectors written alike, and keeps apart those written otherwise", () => {
    const a = parseLabelSelector({ matchLabels: { app: "web", tier: "front" } });
    expect(parseLabelSelector({ matchLabels: { app: "web", tier: "front" } })).toBe(a);
    // The same set in another order matches alike (one canonical key) but is its own object: what it
    // says of a pod lists the labels in the order they were written.
    const b = parseLabelSelector({ matchLabels: { tier: "front", app: "web" } });
    expect(b).not.toBe(a);
    expect(b.key).toBe(a.key);
    expect(failedRequirements(b, {})[0]).toContain("tier");
    expect(failedRequirements(a, {})[0]).toContain("app");
    // Operators the API does not know make a selector that matches nothing, each with its own reason.
    const bad1 = parseLabelSelector({ matchExpressions: [{ key: "x", operator: "Foo" }] });
    const bad2 = parseLabelSelector({ matchExpressions: [{ key: "x", operator: "Bar" }] });
    expect(bad1).not.toBe(bad2);
    expect([bad1.invalid, bad2.invalid]).toEqual([
      '"Foo" is not a valid label selector operator',
      '"Bar" is not a valid label selector operator',
    ]);
    expect(matchesSelector(bad1, { x: "1" })).toBe(false);
    expect(parseLabelSelector({})).toBe(parseLabelSelector({ matchLabels: {} }));
  });
});
