/**
 * Help and the output flag as people type them from git and kubectl: `ktl help CMD`, every
 * option of a command in its help, `-o FORMAT` wherever `--format`/`--json` are, and kubectl's
 * `-n` answered with what ktl does rather than a typo suggestion.
 */
import { describe, expect, it } from "vitest";
import { commands } from "./main.ts";
import { runKtl } from "./testkit.ts";

const ktl = runKtl;

const INPUT = "scenarios/01-trace-a-shop-across-zones";

describe("ktl help", () => {
  it.each(Object.keys(commands))("ktl help %s prints that command's help, as --help does", async (name) => {
    const viaHelp = await ktl("help", name);
    expect(viaHelp).toEqual({ code: 0, out: commands[name]!.help + "\n", err: "" });
    expect((await ktl(name, "--help")).out).toBe(viaHelp.out);
  });

  it("ktl help nosuch exits 2 with a message on stderr", async () => {
    const r = await ktl("help", "rech");
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/^ktl help: no command "rech"; did you mean "reach"\? \(commands: reach, /);
    expect((await ktl("help", "zzzzzz")).code).toBe(2);
  });

  it.each(Object.keys(commands))("ktl %s --help lists every option the command accepts", async (name) => {
    // An unknown option's error lists the command's options (args.ts), from the same spec it parses with.
    const r = await ktl(name, "--zzzz-not-an-option");
    expect(r.code).toBe(2);
    const options = /\(options: ([^)]*)\)/.exec(r.err)![1]!.split(", ");
    const help = commands[name]!.help;
    expect(options.filter((o) => !help.includes(o))).toEqual([]);
  });
});

describe("-o FORMAT everywhere", () => {
  it("is --format where a command has --format, and --json stays -o json", async () => {
    const viaFormat = await ktl("connlist", "--format", "json", INPUT);
    expect(viaFormat.code).toBe(0);
    expect((await ktl("connlist", "-o", "json", INPUT)).out).toBe(viaFormat.out);
    expect((await ktl("connlist", "-ojson", INPUT)).out).toBe(viaFormat.out);
    expect((await ktl("connlist", "--json", INPUT)).out).toBe(viaFormat.out);
    const md = await ktl("connlist", "-o", "md", INPUT);
    expect(md.out).toBe((await ktl("connlist", "--format", "md", INPUT)).out);
    const validate = await ktl("validate", "-o", "sarif", INPUT);
    expect(JSON.parse(validate.out).version).toBe("2.1.0");
  });

  it("is --json where JSON is a command's only machine format, and --format json is too", async () => {
    const viaJson = await ktl("reach", "--json", INPUT);
    expect(viaJson.code).toBe(0);
    expect((await ktl("reach", "-o", "json", INPUT)).out).toBe(viaJson.out);
    expect((await ktl("reach", "--format", "json", INPUT)).out).toBe(viaJson.out);
    expect((await ktl("reach", "--format=json", INPUT)).out).toBe(viaJson.out);
    expect((await ktl("reach", "-o", "text", INPUT)).out).toBe((await ktl("reach", INPUT)).out);
    const bad = await ktl("reach", "-o", "yaml", INPUT);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/-o must be json or text \(the default\) here, not "yaml"/);
    const trace = await ktl(
      "trace",
      "-o",
      "json",
      "--from",
      "pod:shop/frontend-0",
      "--to",
      "service:shop/backend:80",
      INPUT,
    );
    expect(JSON.parse(trace.out).verdict).toBeDefined();
  });

  it("a bad -o value names the command's formats", async () => {
    const r = await ktl("validate", "-o", "yaml", INPUT);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--format must be one of text, json, sarif, github/);
  });
});

describe("kubectl's -n", () => {
  it("says ktl reads every namespace instead of suggesting another flag", async () => {
    const r = await ktl("reach", "-n", "shop", INPUT);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/-n: this command has no namespace filter; it reads every namespace in INPUT/);
    expect(r.err).not.toMatch(/did you mean/);
    expect((await ktl("connlist", "--namespace=shop", INPUT)).err).toMatch(/no namespace filter/);
  });
});
