/**
 * The name of what the editor holds, for the scenario menu and the export
 * file names: the catalogue scenario it came from while most of its lines are
 * still the scenario's; otherwise a name of its own, from the namespaces its
 * objects live in ("payments, web"), or "Untitled".
 */
import { scenarioById } from "../../scenarios/index.ts";

export interface ScenarioName {
  /** The catalogue scenario the text still is (possibly edited), else undefined. */
  scenarioId: string | undefined;
  title: string;
  /** For file names: lowercase letters, digits and dashes. */
  slug: string;
  edited: boolean;
}

const SYSTEM = new Set(["default", "kube-system", "kube-public", "kube-node-lease"]);

/** The lines that name something (`name:`, `namespace:`): boilerplate such as `kind: Pod` says nothing about which scenario a text is. */
function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim().replace(/^- /, ""))
    .filter((l) => /^(name|namespace):\s*\S/.test(l));
}

/** Share of the text's naming lines that are lines of the scenario (0..1). */
export function overlap(text: string, scenario: string): number {
  const mine = lines(text);
  if (mine.length === 0) return 0;
  const theirs = new Set(lines(scenario));
  let same = 0;
  for (const l of mine) if (theirs.has(l)) same++;
  return same / mine.length;
}

/**
 * The namespaces the text's objects name, in order of appearance, system namespaces last: each line
 * `namespace: NAME` (indented or not, quoted or not, a comment after it), and each `kind: Namespace` line's
 * next indented `name: NAME`. Read by searching for the keys, not by regular expressions over every line: the
 * toolbar names the text after each keystroke, and at 10,000 pods (7.7 MB) the expressions this reading
 * replaces took 70 ms of the page's thread in Chromium (name.test.ts holds the two to the same answers).
 */
export function namespacesOf(text: string): string[] {
  // Each name's first place: thousands of objects name a few namespaces.
  const first = new Map<string, number>();
  const saw = (name: string, at: number) => {
    const was = first.get(name);
    if (was === undefined || at < was) first.set(name, at);
  };
  for (let i = text.indexOf("namespace:"); i >= 0; i = text.indexOf("namespace:", i + 10)) {
    if (!onlyBlanksBefore(text, i)) continue;
    const name = nameAt(text, i + 10, true);
    if (name !== undefined) saw(name, i);
  }
  for (let i = text.indexOf("kind:"); i >= 0; i = text.indexOf("kind:", i + 5)) {
    if (i > 0 && text[i - 1] !== "\n") continue;
    let j = skipBlanks(text, i + 5, false);
    if (!text.startsWith("Namespace", j)) continue;
    j = skipBlanks(text, j + 9, true);
    if (j < text.length && text[j] !== "\n") continue;
    // The first `name:` after it, indented (or after a blank line), whose value is a name.
    for (let k = text.indexOf("name:", j); k >= 0; k = text.indexOf("name:", k + 5)) {
      if (!indentedAfter(text, k, j)) continue;
      const name = nameAt(text, k + 5, false);
      if (name !== undefined) {
        saw(name, i);
        break;
      }
    }
  }
  const all = [...first].sort((a, b) => a[1] - b[1]).map(([name]) => name);
  return [...all.filter((n) => !SYSTEM.has(n)), ...all.filter((n) => SYSTEM.has(n))];
}

const SPACE = /\s/;
/** A character of a regular expression's `\s`, line breaks included. */
const isBlank = (c: string | undefined): boolean =>
  c !== undefined &&
  (c === " " ||
    c === "\n" ||
    c === "\t" ||
    c === "\r" ||
    c === "\v" ||
    c === "\f" ||
    (c > "~" && SPACE.test(c)));
const isNameChar = (c: string | undefined): boolean =>
  c !== undefined && ((c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c === "-");

/** Where the line of `i` starts. */
const lineStart = (text: string, i: number): number => text.lastIndexOf("\n", i - 1) + 1;

/** Whether only blanks stand between the start of `i`'s line and `i`. */
function onlyBlanksBefore(text: string, i: number): boolean {
  for (let k = lineStart(text, i); k < i; k++) if (!isBlank(text[k])) return false;
  return true;
}

/**
 * Whether blanks, one at least, stand between a line's start after `from` and `i`: indented on its own line,
 * or at the start of a line that follows a blank one (a line start, then `\s+`).
 */
function indentedAfter(text: string, i: number, from: number): boolean {
  if (!onlyBlanksBefore(text, i)) return false;
  const own = lineStart(text, i);
  if (own < i) return own > from;
  if (own === 0) return false;
  const before = lineStart(text, own - 1);
  return before > from && onlyBlanksBefore(text, own - 1);
}

function skipBlanks(text: string, i: number, sameLine: boolean): number {
  while (i < text.length && isBlank(text[i]) && !(sameLine && text[i] === "\n")) i++;
  return i;
}

/**
 * The name after a key: blanks, an optional quote, then letters, digits and dashes starting and ending with a
 * letter or digit (the longest such); with `whole`, only a quote, blanks and a comment may follow on its line.
 */
function nameAt(text: string, i: number, whole: boolean): string | undefined {
  let j = skipBlanks(text, i, false);
  if (text[j] === '"' || text[j] === "'") j++;
  if (!isNameChar(text[j]) || text[j] === "-") return undefined;
  let end = j;
  while (isNameChar(text[end])) end++;
  let last = end;
  while (text[last - 1] === "-") last--;
  if (whole) {
    if (last !== end) return undefined;
    let k = end;
    if (text[k] === '"' || text[k] === "'") k++;
    k = skipBlanks(text, k, true);
    if (k < text.length && text[k] !== "\n" && text[k] !== "#") return undefined;
  }
  return text.slice(j, last);
}

export function slugOf(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "untitled"
  );
}

export function scenarioName(text: string, scenarioId: string | undefined): ScenarioName {
  const s = scenarioId ? scenarioById(scenarioId) : undefined;
  if (s && (text === s.manifests || overlap(text, s.manifests) >= 0.5)) {
    return { scenarioId: s.id, title: s.title, slug: s.id, edited: text !== s.manifests };
  }
  const ns = namespacesOf(text).filter((n) => !SYSTEM.has(n));
  const title =
    ns.length === 0
      ? "Untitled"
      : ns.length <= 3
        ? ns.join(", ")
        : `${ns.slice(0, 3).join(", ")} and ${ns.length - 3} more`;
  return { scenarioId: undefined, title, slug: slugOf(title), edited: false };
}
