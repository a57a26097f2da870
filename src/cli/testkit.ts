/**
 * Tests' way to run ktl as a user does: the whole command line through main(), with what it
 * prints on stdout and stderr captured, and its exit code.
 */
import { vi } from "vitest";
import { main } from "./main.ts";

export async function runKtl(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    return { code: await main(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}
