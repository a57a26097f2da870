import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DIAGNOSTIC_CODES } from "./diagnostics.ts";

/** Every source file under src/, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("diagnostic codes", () => {
  it("every code the sources raise is documented in DIAGNOSTIC_CODES", () => {
    const raised = new Set<string>();
    for (const f of sources(join(import.meta.dirname, "../.."))) {
      for (const m of readFileSync(f, "utf8").matchAll(/"(KTL\d{3})"/g)) raised.add(m[1]!);
    }
    const undocumented = [...raised].filter((c) => !(c in DIAGNOSTIC_CODES));
    expect(undocumented).toEqual([]);
    // The scan itself found the codes (a scan that finds nothing proves nothing).
    expect(raised.has("KTL101") && raised.has("KTL901")).toBe(true);
  });
  it("every documented code says what it means", () => {
    for (const [code, text] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^KTL\d{3}$/);
      expect(text.length).toBeGreaterThan(10);
    }
  });
});
