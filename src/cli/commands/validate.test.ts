/**
 * `ktl validate` exit codes and output (contract/ktl-cli.md): 0 valid, 1 the
 * apiserver would reject something or a document cannot be read (one clear
 * line on stderr naming the file, the document and the line), 2 bad usage or
 * an input with no Kubernetes object.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../main.ts";

const dir = mkdtempSync(join(tmpdir(), "ktl-validate-"));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function ktl(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    const code = await main(["validate", ...argv]);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

const GOOD = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n";

describe("ktl validate", () => {
  it("exits 0 on a valid Service and prints the contract's JSON", async () => {
    const r = await ktl("--json", file("good.yaml", GOOD));
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { errors: unknown[]; warnings: unknown[] };
    expect(j.errors).toEqual([]);
    expect(Array.isArray(j.warnings)).toBe(true);
  });

  it("exits 1 with the apiserver's field path, type and wording", async () => {
    const r = await ktl(
      "--json",
      file(
        "etp.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}]\n  externalTrafficPolicy: Local\n",
      ),
    );
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as { errors: Record<string, unknown>[] };
    expect(j.errors[0]).toMatchObject({
      kind: "Service",
      namespace: "default",
      name: "web",
      field: "spec.externalTrafficPolicy",
      type: "Invalid value",
      detail: "may only be set for externally-accessible services",
      line: 6,
    });
  });

  it("prints errors like kubectl for people", async () => {
    const r = await ktl(
      file(
        "etp2.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}]\n  externalTrafficPolicy: Local\n",
      ),
    );
    expect(r.out).toContain(
      'etp2.yaml:6: error: Service default/web: spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    );
  });

  it("exits 2 with one line naming a file that does not exist", async () => {
    const r = await ktl(join(dir, "missing.yaml"));
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toContain("missing.yaml");
  });

  it("exits 1 on a YAML syntax error (the answer misses that document), one line naming the file, the document and the line, and still checks the rest", async () => {
    const p = file(
      "broken.yaml",
      `${GOOD}---\nkind: Service\nmetadata: {name: x\n---\n${GOOD.replace("web", "web2")}`,
    );
    const r = await ktl("--json", p);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/broken\.yaml/);
    expect(lines[0]).toMatch(/document 2/);
    expect(lines[0]).toMatch(/line \d+/);
    const j = JSON.parse(r.out) as { errors: unknown[] };
    expect(j.errors).toEqual([]);
  });

  it("reports an object without metadata.name as the apiserver does", async () => {
    const r = await ktl(
      "--json",
      file(
        "noname.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {namespace: x}\nspec: {ports: [{port: 80}]}\n",
      ),
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).errors[0]).toMatchObject({
      kind: "Service",
      field: "metadata.name",
      type: "Required value",
      detail: "name or generateName is required",
    });
  });

  it("exits 2 without INPUT", async () => {
    const r = await ktl();
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toHaveLength(1);
  });
});

describe("ktl validate --old OLD NEW: the update path (patchAllocatedValues, ValidateServiceUpdate)", () => {
  const headless =
    "apiVersion: v1\nkind: Service\nmetadata: {name: pg, namespace: data}\nspec:\n  clusterIP: None\n  selector: {app: pg}\n  ports: [{port: 5432}]\n";
  it("removing clusterIP: None is accepted (exit 0) with KTL620: the Service stays headless", async () => {
    const r = await ktl(
      "--json",
      "--old",
      file("old.yaml", headless),
      file("new.yaml", headless.replace("  clusterIP: None\n", "")),
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.updated).toEqual(["Service data/pg"]);
    expect(j.warnings.map((w: { code: string }) => w.code)).toContain("KTL620");
  });
  it("an explicit new clusterIP is rejected (exit 1)", async () => {
    const r = await ktl(
      "--old",
      file("old2.yaml", headless),
      file("new2.yaml", headless.replace("None", "10.96.0.50")),
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/spec\.clusterIPs\[0\]: Invalid value: .*may not change once set/);
  });
});
