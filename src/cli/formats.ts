/**
 * Output for CI systems: SARIF 2.1.0 (GitHub code scanning, GitLab, Azure
 * DevOps), GitHub Actions workflow commands (annotations on the changed lines
 * of a pull request), Markdown for pull-request comments, and JUnit XML.
 * Views only: each takes what a command computed and words it.
 */
import type { Diagnostic, ValidationFinding, ValidationWarning } from "../engine/index.ts";

/** One problem, whatever found it: an unreadable document, an apiserver error or a lint warning. */
export interface Problem {
  ruleId: string;
  level: "error" | "warning" | "note";
  message: string;
  file: string;
  line: number;
  column?: number;
  /** A short name of the rule (SARIF `shortDescription`, the annotation's title). */
  title: string;
  help?: string;
}

function who(f: ValidationFinding): string {
  return `${f.kind} ${f.namespace ? `${f.namespace}/` : ""}${f.name}`;
}

/** The apiserver's error type as a stable rule id: "Invalid value" -> "apiserver/invalid-value". */
function apiserverRule(type: string): string {
  return `apiserver/${type.toLowerCase().replace(/[^a-z]+/g, "-")}`;
}

export function problemsOf(
  diagnostics: readonly Diagnostic[],
  errors: readonly ValidationFinding[],
  warnings: readonly ValidationWarning[],
  fieldError: (f: ValidationFinding) => string,
): Problem[] {
  const out: Problem[] = [];
  for (const d of diagnostics) {
    if (d.severity === "info") continue;
    const p: Problem = {
      ruleId: d.code,
      level: d.severity === "error" ? "error" : "warning",
      message: d.message,
      file: d.file,
      line: d.line,
      title: d.code,
    };
    if (d.column) p.column = d.column;
    if (d.hint) p.help = d.hint;
    out.push(p);
  }
  for (const e of errors)
    out.push({
      ruleId: apiserverRule(e.type),
      level: "error",
      message: `${who(e)}: ${fieldError(e)}`,
      file: e.file,
      line: e.line,
      title: `kube-apiserver: ${e.type}`,
    });
  for (const w of warnings)
    out.push({
      ruleId: w.code,
      level: "warning",
      message: `${who(w)}: ${w.field}: ${w.detail}`,
      file: w.file,
      line: w.line,
      title: `${w.code}: ${w.type === "Warning" ? "lint" : w.type}`,
      help: w.hint,
    });
  return out;
}

/**
 * A file name as a SARIF artifact location: a relative path stays relative to
 * the checkout (SRCROOT, as code scanning resolves it); an absolute one is a file: URI.
 */
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  const path = file
    .replace(/\\/g, "/")
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
  return path.startsWith("/") ? { uri: `file://${path}` } : { uri: path, uriBaseId: "SRCROOT" };
}

// The rules page's address is the engine's (the playground's Problems link it too).
export { RULES_URL, ruleHelpUri } from "../engine/analysis/constants.ts";
import { ruleHelpUri } from "../engine/analysis/constants.ts";

/** SARIF 2.1.0 (OASIS), one run of the tool `ktl`. */
export function toSarif(problems: readonly Problem[], version: string): object {
  const rules = new Map<string, { id: string; shortDescription: { text: string }; helpUri: string }>();
  for (const p of problems)
    if (!rules.has(p.ruleId))
      rules.set(p.ruleId, {
        id: p.ruleId,
        shortDescription: { text: p.title },
        helpUri: ruleHelpUri(p.ruleId),
      });
  const ruleIndex = [...rules.keys()];
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "ktl", fullName: "Kube Traffic Lab", version, rules: [...rules.values()] } },
        results: problems.map((p) => {
          const region: Record<string, number> = {};
          if (p.line > 0) region.startLine = p.line;
          if (p.line > 0 && p.column) region.startColumn = p.column;
          const physicalLocation: Record<string, unknown> = { artifactLocation: artifactLocation(p.file) };
          if (region.startLine) physicalLocation.region = region;
          return {
            ruleId: p.ruleId,
            ruleIndex: ruleIndex.indexOf(p.ruleId),
            level: p.level,
            message: { text: p.help ? `${p.message} (fix: ${p.help})` : p.message },
            locations: [{ physicalLocation }],
          };
        }),
      },
    ],
  };
}

/** Escapes for GitHub's workflow commands: the message (data) and the properties. */
function ghData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function ghProp(s: string): string {
  return ghData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::error file=F,line=L,col=C,title=T::message`, one line per problem. */
export function toGithub(problems: readonly Problem[]): string {
  return problems
    .map((p) => {
      const props = [`file=${ghProp(p.file)}`];
      if (p.line > 0) props.push(`line=${p.line}`);
      if (p.line > 0 && p.column) props.push(`col=${p.column}`);
      props.push(`title=${ghProp(p.title)}`);
      const cmd = p.level === "note" ? "notice" : p.level;
      return `::${cmd} ${props.join(",")}::${ghData(p.help ? `${p.message}\nfix: ${p.help}` : p.message)}`;
    })
    .join("\n");
}

export { mdCell, mdTable } from "../engine/markdown.ts";

/** XML 1.0 cannot carry control characters other than tab, line feed and carriage return: they are dropped. */
function xml(s: string): string {
  let clean = "";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c >= 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) clean += ch;
  }
  return clean.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export interface JUnitCase {
  name: string;
  /** The class CI reports group cases by (Jenkins shows its last dot-part as the class): "ktl.tests". */
  classname: string;
  /** Seconds the case took. */
  time: number;
  failure?: string;
  /** The case could not be run (a name not in the input): JUnit's error, apart from failures. */
  error?: string;
}

const seconds = (t: number) => t.toFixed(3);

/** JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters): one testsuite, with times and errors apart. */
export function toJUnit(suite: string, cases: readonly JUnitCase[]): string {
  const errors = cases.filter((c) => c.error !== undefined).length;
  const failures = cases.filter((c) => c.error === undefined && c.failure !== undefined).length;
  const time = seconds(cases.reduce((t, c) => t + c.time, 0));
  const body = cases.map((c) => {
    const head = `    <testcase name="${xml(c.name)}" classname="${xml(c.classname)}" time="${seconds(c.time)}"`;
    const [tag, text] =
      c.error !== undefined ? ["error", c.error] : c.failure !== undefined ? ["failure", c.failure] : [];
    return tag === undefined
      ? `${head}/>`
      : `${head}>\n      <${tag} message="${xml(text!.split("\n")[0]!)}">${xml(text!)}</${tag}>\n    </testcase>`;
  });
  const counts = `tests="${cases.length}" failures="${failures}" errors="${errors}" time="${time}"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites ${counts}>`,
    `  <testsuite name="${xml(suite)}" ${counts}>`,
    ...body,
    `  </testsuite>`,
    `</testsuites>`,
  ].join("\n");
}
