import { describe, expect, it } from "vitest";
import { thousands } from "./format.ts";

describe("thousands", () => {
  it("groups digits as toLocaleString('en') does, without loading ICU", () => {
    const xs = [0, 1, 12, 999, 1000, 1234, 99999, 100000, 151507, 1234567, -1, -1000, -1234567, 2 ** 53 - 1];
    for (let i = 0; i < 500; i++)
      xs.push(Math.floor((Math.random() - 0.3) * 10 ** Math.floor(Math.random() * 15)));
    for (const n of xs) expect(thousands(n)).toBe(n.toLocaleString("en"));
  });

  it("writes a number it cannot group as String does", () => {
    expect(thousands(1.5)).toBe("1.5");
    expect(thousands(Number.NaN)).toBe("NaN");
  });
});
