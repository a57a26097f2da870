/**
 * Issue 34, item 2: the flags people already type, from netpol-analyzer (`list`, `--dirpath`,
 * `diff --dir1 --dir2`, `-o csv`) and kubectl (`-f FILE`, repeatable), meaning what they mean there.
 */
import { describe, expect, it } from "vitest";
import { runKtl } from "./testkit.ts";

const ktl = runKtl;

const DIR = "scenarios/01-trace-a-shop-across-zones";
const FILE = `${DIR}/manifests.yaml`;

describe("netpol-analyzer's and kubectl's spellings", () => {
  it("ktl list --dirpath DIR -o md is ktl connlist DIR --format md (the issue's failing line)", async () => {
    const alias = await ktl("list", "--dirpath", DIR, "-o", "md");
    expect(alias.code).toBe(0);
    expect(alias).toEqual(await ktl("connlist", "--format", "md", DIR));
    expect(alias.out).toMatch(/^\| src \| dst \| conn \|/m);
  });

  it("-f FILE, --filename=FILE and -fFILE are INPUTs, repeatable, after the positional ones", async () => {
    const plain = await ktl("connlist", FILE);
    expect(await ktl("connlist", "-f", FILE)).toEqual(plain);
    expect(await ktl("connlist", `--filename=${FILE}`)).toEqual(plain);
    expect(await ktl("connlist", `-f${FILE}`)).toEqual(plain);
    expect((await ktl("reach", "--summary", "-f", FILE, "-f", FILE)).code).toBe(0);
    expect((await ktl("connlist", "-f")).err).toMatch(/-f needs a file or directory/);
  });

  it("diff --dir1 BEFORE --dir2 AFTER is diff BEFORE AFTER", async () => {
    const plain = await ktl("diff", FILE, FILE);
    expect(await ktl("diff", "--dir1", FILE, "--dir2", FILE)).toEqual(plain);
    expect((await ktl("diff", "--dir1", FILE)).err).toMatch(/--dir1 and --dir2 go together/);
  });

  it("-o csv is netpol-analyzer's CSV: a header, then one quoted row a connection", async () => {
    const r = await ktl("connlist", "-o", "csv", DIR);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines[0]).toBe("src,dst,conn");
    expect(lines.length).toBeGreaterThan(1);
    // A conn with several ports has commas: quoted, as Go's encoding/csv writes it.
    for (const l of lines.slice(1)) expect(l).toMatch(/^[^,"]+,[^,"]+,("[^"]*"|[^,"]*)$/);
  });

  it("ktl help list is connlist's help", async () => {
    expect((await ktl("help", "list")).out).toBe((await ktl("help", "connlist")).out);
  });
});
