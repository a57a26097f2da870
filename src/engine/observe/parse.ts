/**
 * Flow files -> observed flows. The format is read per file (a `.csv` name,
 * or text that does not start with `{` or `[`, is ktl's CSV) and per JSON
 * record (a Hubble flow or a Calico flow log record), so one file may mix
 * Hubble's two wrappings. Every record is a flow, a skip with its reason or
 * an error with its line: nothing is dropped in silence.
 */
import type { InputFile } from "../parse/manifests.ts";
import { isObj } from "../parse/values.ts";
import { isCalico, readCalico } from "./calico.ts";
import { readCsv } from "./csv.ts";
import { isHubble, readHubble, type Read } from "./hubble.ts";
import { jsonRecords } from "./records.ts";
import type { FlowSet } from "./types.ts";

function isCsv(file: InputFile): boolean {
  if (/\.csv$/i.test(file.name)) return true;
  const first = file.text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .find((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
  return first !== undefined && !/^\s*[[{]/.test(first);
}

export function parseFlows(files: readonly InputFile[]): FlowSet {
  const set: FlowSet = { flows: [], skipped: [], errors: [], formats: {} };
  for (const file of files) {
    if (isCsv(file)) {
      const r = readCsv(file.text, file.name);
      set.flows.push(...r.flows);
      set.errors.push(...r.errors);
      if (r.flows.length) set.formats.csv = (set.formats.csv ?? 0) + r.flows.length;
      continue;
    }
    for (const rec of jsonRecords(file.text)) {
      const at = { file: file.name, line: rec.line };
      if (rec.error !== undefined) {
        set.errors.push({ ...at, message: rec.error });
        continue;
      }
      const v = rec.value;
      let read: Read;
      let format: "hubble" | "calico";
      if (!isObj(v)) read = { error: "a record is a JSON object" };
      else if (isCalico(v)) [read, format] = [readCalico(v, file.name, rec.line), "calico"];
      else if (isHubble(v)) [read, format] = [readHubble(v, file.name, rec.line), "hubble"];
      else read = { error: "neither a Hubble flow nor a Calico flow log record" };
      if ("error" in read) set.errors.push({ ...at, message: read.error });
      else if ("skip" in read) set.skipped.push({ ...at, reason: read.skip });
      else {
        set.flows.push(read.flow);
        set.formats[format!] = (set.formats[format!] ?? 0) + 1;
      }
    }
  }
  return set;
}
