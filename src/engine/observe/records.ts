/**
 * A flow file's JSON records, each with its line: JSON Lines (what
 * `hubble observe -o json` prints, one flow a line, and Calico's flow log
 * files) or one JSON array of records (an export). A record that is not JSON
 * is an error naming its line, never skipped in silence.
 */

export interface JsonRecord {
  /** 1-based line where the record starts. */
  line: number;
  value?: unknown;
  error?: string;
}

function parseOne(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: `not valid JSON: ${(e as Error).message.split("\n")[0]}` };
  }
}

/** One record per non-blank line. */
function jsonLines(text: string): JsonRecord[] {
  const out: JsonRecord[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((l, i) => {
    if (l.trim() === "") return;
    out.push({ line: i + 1, ...parseOne(l) });
  });
  return out;
}

/**
 * The top-level elements of a JSON array, each parsed on its own so a bad
 * one names its own line: a scan that skips strings and counts brackets
 * finds where each element starts and ends.
 */
function jsonArray(text: string): JsonRecord[] {
  const out: JsonRecord[] = [];
  let depth = 0;
  let line = 1;
  let start = -1;
  let startLine = 0;
  let inString = false;
  const flush = (end: number) => {
    if (start < 0) return;
    out.push({ line: startLine, ...parseOne(text.slice(start, end)) });
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && start < 0 && !/[\s,\]]/.test(c)) {
      start = i;
      startLine = line;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") {
      depth--;
      if (depth === 0) {
        flush(i);
        const rest = text.slice(i + 1).trim();
        if (rest !== "") out.push({ line, error: "text after the end of the JSON array" });
        return out;
      }
    } else if (c === "," && depth === 1) flush(i);
  }
  flush(text.length);
  out.push({ line, error: "the JSON array is not closed" });
  return out;
}

/** A JSON flow file's records: an array when the text starts with `[`, else JSON Lines. */
export function jsonRecords(text: string): JsonRecord[] {
  const body = text.replace(/^\uFEFF/, "");
  return body.trimStart().startsWith("[") ? jsonArray(body) : jsonLines(body);
}
