/**
 * Strict command lines (node:util parseArgs, strict mode): an unknown flag is an
 * error naming the nearest known one, and never swallows the next argument.
 */
import { describe, expect, it } from "vitest";
import { flagString, flagStrings, isOn, nearestFlag, parseArgs } from "./args.ts";
import { UsageError } from "./io.ts";

const spec = {
  booleans: ["json", "summary", "masquerade-all"],
  strings: ["port", "from"],
  multiple: ["header"],
};

describe("parseArgs (strict)", () => {
  it("reads booleans, values in both spellings, repeated flags and positionals", () => {
    const a = parseArgs(
      ["--json", "--port", "8080", "--from=pod:x/a", "--header", "A: 1", "--header", "B: 2", "f.yaml", "-"],
      spec,
    );
    expect(isOn(a, "json")).toBe(true);
    expect(flagString(a, "port")).toBe("8080");
    expect(flagString(a, "from")).toBe("pod:x/a");
    expect(flagStrings(a, "header")).toEqual(["A: 1", "B: 2"]);
    expect(a.positional).toEqual(["f.yaml", "-"]);
  });

  it("a typo is an error naming the nearest flag, and the input stays an input", () => {
    expect(() => parseArgs(["--jsn", "file.yaml"], spec)).toThrow(
      new UsageError(
        "unknown option --jsn; did you mean --json? (options: --json, --summary, --masquerade-all, --port, --from, --header)",
      ),
    );
    expect(() => parseArgs(["--prot=80"], spec)).toThrow(/did you mean --port\?/);
    expect(() => parseArgs(["--zzzzzz"], spec)).toThrow(/^unknown option --zzzzzz \(options:/);
  });

  it("a value flag at the end needs a value; a boolean takes none", () => {
    expect(() => parseArgs(["--port"], spec)).toThrow(new UsageError("--port needs a value"));
    expect(() => parseArgs(["--json=yes"], spec)).toThrow(/--json takes no value/);
  });

  it("--flag=false is kept as an explicit no (kube-proxy's --masquerade-all=false overrides a configuration)", () => {
    const a = parseArgs(["--masquerade-all=false", "--json=true"], spec);
    expect(isOn(a, "masquerade-all")).toBe(false);
    expect(a.flags.get("masquerade-all")).toBe("false");
    expect(isOn(a, "json")).toBe(true);
  });

  it("-h is --help for every command", () => {
    expect(isOn(parseArgs(["-h"], {}), "help")).toBe(true);
  });
});

describe("nearestFlag", () => {
  it.each([
    ["jsn", "json"],
    ["summray", "summary"],
    ["sum", "summary"],
    ["protocl", "protocol"],
    ["xyz", undefined],
  ])("%s -> %s", (typo, want) => {
    expect(nearestFlag(typo, ["json", "summary", "port", "protocol"])).toBe(want);
  });
});
