import { describe, expect, it } from "vitest";
import { fnv1a, replicaNames, safeSuffix } from "./hash.ts";

describe("generated pod names", () => {
  it("keeps the names it gave before replicaNames hashed the shared prefix once", () => {
    // Values from the per-replica formula `${rs}-${safeSuffix(`${rs}#${i}`, 5)}` before the change: a
    // scenario's pod names (and so their sort order, IPs and classes) must not move.
    const names = replicaNames("web-7d4b9c8f6d", 1235);
    expect([0, 1, 9, 10, 99, 1234].map((i) => names[i])).toEqual([
      "web-7d4b9c8f6d-wlrln",
      "web-7d4b9c8f6d-8666s",
      "web-7d4b9c8f6d-lpbq7",
      "web-7d4b9c8f6d-h7q8f",
      "web-7d4b9c8f6d-nsfqc",
      "web-7d4b9c8f6d-stdwd",
    ]);
    expect(safeSuffix("x/y@node-1", 5)).toBe("fm2ml");
    expect(safeSuffix("seed", 10)).toBe("pm6f6qsxd9");
  });

  it("is the per-replica formula for any base", () => {
    const bases = ["a", "db-0", "Ünïcode-ß", "job-28123456", "x".repeat(80)];
    for (const base of bases)
      expect(replicaNames(base, 40)).toEqual(
        Array.from({ length: 40 }, (_, i) => `${base}-${safeSuffix(`${base}#${i}`, 5)}`),
      );
  });

  it("continues a prefix's hash", () => {
    expect(fnv1a("world", fnv1a("hello "))).toBe(fnv1a("hello world"));
  });
});
