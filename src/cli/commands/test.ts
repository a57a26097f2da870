/** `ktl test TESTS INPUT...`: policy tests as files, a pass/fail line per expectation with the rule that decided it. */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import {
  buildProxyIndex,
  loadModel,
  parseExpectations,
  runExpectations,
  NETASSERT_FIELDS,
  unmodelledFor,
  unmodelledHeadline,
  type ExpectationResult,
} from "../../engine/index.ts";
import { readInputs, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import {
  exitFor,
  formatDiagnostic,
  omissionsHeadline,
  omissionsOf,
  oneLine,
  reportDiagnostics,
  requireObjects,
} from "../report.ts";
import { toJUnit, type JUnitCase } from "../formats.ts";

export const help = `ktl test [--format text|json|junit] TESTS INPUT...

Checks expectations about traffic (TESTS, a YAML file) against the manifests
(INPUT), with the same trace as ktl trace: one PASS or FAIL line per
expectation with the rule that decided it; exit 1 when any fails.

  tests:
    - name: the storefront reaches the backend
      from: shop/frontend                 # every pod of a workload (NAMESPACE/NAME)
      to: service:shop/backend:8080       # anything ktl trace --to takes
      expect: allow                       # allow, drop or partial
    - name: the edge keeps the client's address
      from: external:0.0.0.0/0            # a client outside, at every node
      to: service:shop/edge:443
      expect: allow
      sourceIPPreserved: true
    - name: nothing in dev reaches payments
      from: namespace:dev                 # every pod of a namespace
      to: namespace:payments:8443         # every pod of a namespace, on a port
      expect: drop

FROM: pod:NS/NAME, NS/NAME or workload:NS/NAME, namespace:NS, node:NAME,
external:IP@NODE, external:IP or external:CIDR (at every node). An
expectation about many pods holds when every pair meets it.
TO: service:NS/NAME:PORT, pod:NS/NAME:PORT, ip:ADDR:PORT (and the trace's
other forms), NS/NAME:PORT or workload:NS/NAME:PORT, namespace:NS:PORT.
Optional: protocol (TCP, UDP, SCTP), http ('GET /path').

netassert v2 test files are read too (a list of tests with src and dst);
the fields used: ${NETASSERT_FIELDS.join(", ")}. exitCode 0 expects the
connection to open (allow), any other value expects it to fail (drop); every
pod of a workload is checked, not one.

  --format json    the results with every pair checked
  --format junit   JUnit XML for CI test reports
  --json           the same as --format json (-o FORMAT is --format FORMAT)

Exit 1 also when a document of INPUT could not be read (named first; in
"skipped" with --format json), 2 when INPUT holds no Kubernetes object.`;

const FORMATS = ["text", "json", "junit"];

/** A result as lines: its head, then its summary or each failure, each one line whatever the names in it hold. */
function line(r: ExpectationResult): string {
  const where = r.line ? `${r.file}:${r.line}` : r.file;
  const head = oneLine(`${r.pass ? "PASS" : r.error !== undefined ? "ERROR" : "FAIL"}  ${r.name} (${where})`);
  if (r.pass) return `${head}\n      ${oneLine(r.summary)}`;
  return `${head}\n${r.failures.map((f) => `      ${oneLine(f)}`).join("\n")}`;
}

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = { strings: ["format"], booleans: ["json"] };

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const format = (flagString(args, "format") ?? (isOn(args, "json") ? "json" : "text")).toLowerCase();
  if (!FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not "${format}"`);
  const [testsPath, ...inputs] = args.positional;
  if (!testsPath) throw new UsageError("needs a TESTS file, then the INPUT manifests");
  if (!inputs.length) throw new UsageError("no INPUT given after the TESTS file: name the manifests to test");
  let text: string;
  try {
    text = readFileSync(testsPath === "-" ? 0 : testsPath, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EISDIR")
      throw new UsageError(
        `${testsPath} is a directory: TESTS is one file (ktl's tests: list, or a netassert v2 file); the INPUT after it may be a directory`,
      );
    throw new UsageError(`${testsPath}: cannot read: ${(e as Error).message}`);
  }
  const parsed = parseExpectations(testsPath === "-" ? "<stdin>" : testsPath, text);
  const bad = parsed.diagnostics.filter((d) => d.severity === "error");
  if (bad.length) {
    for (const d of bad) io.err(formatDiagnostic(d));
    return 2;
  }
  if (!parsed.expectations.length) throw new UsageError(`${testsPath}: no test in the file`);
  const model = loadModel(readInputs(inputs));
  reportDiagnostics(model.diagnostics, io, true);
  requireObjects(model);
  const omitted = omissionsOf(model);
  const unmodelled = unmodelledFor(model, "all");
  // One at a time, so that each case has its time in the JUnit report.
  const proxy = buildProxyIndex(model);
  const timed = parsed.expectations.map((e) => {
    const t0 = performance.now();
    const [r] = runExpectations(model, proxy, [e]);
    return { r: r!, seconds: (performance.now() - t0) / 1000 };
  });
  const results = timed.map((x) => x.r);
  const errors = results.filter((r) => r.error !== undefined).length;
  const failed = results.filter((r) => !r.pass).length - errors;
  if (format === "json")
    io.out(
      JSON.stringify(
        { passed: results.length - failed - errors, failed, errors, results, unmodelled, ...omitted },
        null,
        2,
      ),
    );
  else if (format === "junit") {
    // CI reports group cases by class: the test file's name ("ktl.tests"), not its path.
    const base = testsPath === "-" ? "stdin" : basename(testsPath).replace(/\.[^.]*$/, "");
    io.out(
      toJUnit(
        "ktl test",
        timed.map(({ r, seconds }) => {
          const c: JUnitCase = { name: r.name, classname: `ktl.${base.replace(/\./g, "_")}`, time: seconds };
          if (r.error !== undefined) c.error = r.error;
          else if (!r.pass) c.failure = r.failures.join("\n");
          return c;
        }),
      ),
    );
  } else {
    for (const h of [unmodelledHeadline(unmodelled), omissionsHeadline(omitted)]) if (h) io.out(h);
    for (const r of results) io.out(line(r));
    io.out(
      `\n${results.length - failed - errors} passed, ${failed} failed${errors ? `, ${errors} could not run` : ""}`,
    );
  }
  // A test that could not run is no pass either.
  const notPassed = failed + errors;
  // A passing run that misses a document is not a pass of the whole input.
  return exitFor(omitted, notPassed ? 1 : 0);
}
