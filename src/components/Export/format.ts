/**
 * Exports as text: a trace and a matrix as Markdown (for notes and slides)
 * and JSON (the engine's own data), and file names for the downloads. Pure:
 * the download itself is in download.ts.
 */
import {
  formatProbability,
  stepTitle,
  verdictMark,
  type HopStep,
  type HopVerdict,
} from "../../engine/analysis/index.ts";
import { mdCell, mdText } from "../../engine/markdown.ts";

/** The `ktl trace --json` fields an export shows (shared/contract/ktl-cli.md). */
export interface TraceLike {
  verdict: string;
  reason: string;
  sourceIPPreserved: boolean;
  endpoints: readonly {
    ip: string;
    port: number;
    pod?: string;
    node?: string;
    probability: number;
    verdict: string;
    reason: string;
  }[];
  hops: readonly {
    step: HopStep;
    verdict: HopVerdict;
    detail: string;
    ref?: { kind: string; namespace?: string; name: string; line: number };
  }[];
  error?: string;
}

export interface TraceQueryLike {
  from: string;
  to: string;
  protocol: string;
}

export interface MatrixLike {
  port: number;
  protocol: string;
  by: string;
  labels: readonly string[];
  cells: readonly string[];
  tooLarge?: string;
}

/** Inline Markdown from plain text (engine/markdown.ts): names and reasons are data, never markup. */
export const md = mdText;
const cell = mdCell;

export function traceMarkdown(q: TraceQueryLike, t: TraceLike): string {
  const out = [`# Trace ${md(q.from)} → ${md(q.to)} (${q.protocol})`, ""];
  if (t.error) {
    out.push(`The question cannot be asked: ${md(t.error)}`);
    return out.join("\n") + "\n";
  }
  out.push(`**${t.verdict.toUpperCase()}**: ${md(t.reason)}`, "");
  out.push(
    `Source address at the backends: ${t.sourceIPPreserved ? "the client's own" : "rewritten (masquerade)"}.`,
    "",
  );
  out.push("## Hops", "");
  t.hops.forEach((h, i) => {
    const at = h.ref
      ? ` _(${md(h.ref.kind)} ${h.ref.namespace !== undefined ? `${md(h.ref.namespace)}/` : ""}${md(h.ref.name)}${h.ref.line ? `, line ${h.ref.line}` : ""})_`
      : "";
    out.push(`${i + 1}. **${stepTitle(h.step)}** [${verdictMark(h.verdict)}]: ${md(h.detail)}${at}`);
  });
  if (t.endpoints.length) {
    out.push(
      "",
      "## Endpoints",
      "",
      "| Endpoint | Pod | Node | Chance | Verdict | Reason |",
      "|---|---|---|---|---|---|",
    );
    for (const e of t.endpoints)
      out.push(
        `| ${e.ip}:${e.port} | ${cell(e.pod ?? "")} | ${cell(e.node ?? "")} | ${formatProbability(e.probability)} | ${e.verdict} | ${cell(e.reason)} |`,
      );
  }
  return out.join("\n") + "\n";
}

const CELL: Record<string, string> = { a: "✓", d: "✗", p: "◐" };

export function matrixMarkdown(m: MatrixLike): string {
  const out = [`# Reachability ${m.protocol}/${m.port} by ${m.by}`, ""];
  if (m.tooLarge) {
    out.push(m.tooLarge);
    return out.join("\n") + "\n";
  }
  out.push("Rows send, columns receive: ✓ allowed, ✗ dropped, ◐ some pods only.", "");
  const cols = m.labels.map((_, i) => String(i + 1));
  out.push(`| from \\ to | ${cols.join(" | ")} |`, `|---|${cols.map(() => ":-:").join("|")}|`);
  m.labels.forEach((label, i) => {
    const row = m.cells[i] ?? "";
    out.push(`| ${i + 1}. ${cell(label)} | ${[...row].map((c) => CELL[c] ?? c).join(" | ")} |`);
  });
  return out.join("\n") + "\n";
}

export function asJSON(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** A file name from parts: letters, digits, dots and dashes only. */
export function fileName(parts: readonly string[], ext: string): string {
  const base = parts
    .map((p) => p.replace(/[^A-Za-z0-9.-]+/g, "-").replace(/^-+|-+$/g, ""))
    .filter(Boolean)
    .join("_")
    .slice(0, 120);
  return `${base || "ktl"}.${ext}`;
}
