import { describe, expect, it } from "vitest";
import { portKey, reasonLine } from "./edgeKeys.ts";

describe("an edge's port keys and reason lines", () => {
  it("are the strings the templates made, one object per pair", () => {
    expect(portKey(8080, "TCP")).toBe("8080/TCP");
    expect(portKey(8080, "UDP")).toBe("8080/UDP");
    expect(reasonLine("8080/TCP", "no rule admits it")).toBe("8080/TCP: no rule admits it");
    expect(reasonLine("53/UDP", "no rule admits it")).toBe("53/UDP: no rule admits it");
    // Sets of them compare by value anyway; the same object is what saves the hashing.
    const a = reasonLine("80/TCP", `denied by ${"x".repeat(3)}`);
    expect(reasonLine("80/TCP", "denied by xxx")).toBe(a);
  });

  it("stay right past the memo's bound", () => {
    for (let i = 0; i < 50_010; i++) reasonLine("1/TCP", `reason ${i}`);
    expect(reasonLine("1/TCP", "reason 7")).toBe("1/TCP: reason 7");
    expect(reasonLine("1/TCP", "reason 50009")).toBe("1/TCP: reason 50009");
  });
});
