/**
 * A connectivity list in netpol-analyzer's output formats (its
 * docs/connlist_output.md): `txt` lines `src => dst : conns`, `json` an array
 * of {src, dst, conn}, `md` a table with columns src, dst, conn, and `dot` a
 * Graphviz digraph with one cluster per namespace.
 */
import { INGRESS_CONTROLLER, type ConnList } from "./index.ts";
import { formatSvg } from "./svg.ts";
import type { Exposure, ExposureLine } from "./exposure.ts";

export type ConnlistFormat = "txt" | "json" | "md" | "dot" | "csv" | "svg";
export const CONNLIST_FORMATS: readonly ConnlistFormat[] = ["txt", "json", "md", "dot", "csv", "svg"];

/** A CSV field as RFC 4180 (and Go's encoding/csv, which netpol-analyzer writes with) quotes it. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** netpol-analyzer's csv: a header `src,dst,conn`, then one row a connection. */
function formatCsv(list: ConnList): string {
  const rows = [["src", "dst", "conn"], ...list.lines.map((l) => [l.src, l.dst, l.conn])];
  return rows.map((r) => r.map(csvField).join(",")).join("\n") + "\n";
}

/** One line per pair, each ending in LF; empty text for no lines. */
export function formatTxt(list: ConnList): string {
  return list.lines.map((l) => `${l.src} => ${l.dst} : ${l.conn}\n`).join("");
}

export function formatJson(list: ConnList): string {
  return (
    JSON.stringify(
      list.lines.map((l) => ({ src: l.src, dst: l.dst, conn: l.conn })),
      null,
      2,
    ) + "\n"
  );
}

export function formatMd(list: ConnList): string {
  const rows = [
    "| src | dst | conn |",
    "|-----|-----|------|",
    ...list.lines.map((l) => `| ${l.src} | ${l.dst} | ${l.conn} |`),
  ];
  return rows.join("\n") + "\n";
}

const quote = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** Workloads grouped in one `cluster_<namespace>` subgraph per namespace; IP ranges red, edges labelled with the connections. */
export function formatDot(list: ConnList): string {
  const out = ["digraph {"];
  const used = new Set(list.lines.flatMap((l) => [l.src, l.dst]));
  const byNamespace = new Map<string, string[]>();
  for (const n of list.nodes) {
    if (n.kind !== "workload" || !n.workload) continue;
    const l = byNamespace.get(n.workload.namespace);
    const label = `${n.workload.name}[${n.workload.kind}]`;
    const line = `\t\t${quote(n.name)} [label=${quote(label)} color="blue" fontcolor="blue"]`;
    if (l) l.push(line);
    else byNamespace.set(n.workload.namespace, [line]);
  }
  for (const ns of [...byNamespace.keys()].sort()) {
    out.push(
      `\tsubgraph ${quote(`cluster_${ns}`)} {`,
      ...byNamespace.get(ns)!,
      `\t\tlabel=${quote(ns)}`,
      "\t}",
    );
  }
  for (const n of list.nodes) {
    if (n.kind === "external" && used.has(n.name))
      out.push(`\t${quote(n.name)} [label=${quote(n.name)} color="red2" fontcolor="red2"]`);
  }
  if (used.has(INGRESS_CONTROLLER))
    out.push(
      `\t${quote(INGRESS_CONTROLLER)} [label=${quote(INGRESS_CONTROLLER)} color="blue" fontcolor="blue"]`,
    );
  for (const l of list.lines)
    out.push(
      `\t${quote(l.src)} -> ${quote(l.dst)} [label=${quote(l.conn)} color="gold2" fontcolor="darkgreen"]`,
    );
  out.push("}");
  return out.join("\n") + "\n";
}

export function formatConnlist(list: ConnList, format: ConnlistFormat): string {
  switch (format) {
    case "txt":
      return formatTxt(list);
    case "json":
      return formatJson(list);
    case "md":
      return formatMd(list);
    case "dot":
      return formatDot(list);
    case "csv":
      return formatCsv(list);
    case "svg":
      return formatSvg(list);
  }
}

/** The formats `--exposure` writes (upstream's dot and svg exposure graphs are not drawn). */
export const EXPOSURE_FORMATS: readonly ConnlistFormat[] = ["txt", "json", "md", "csv"];

const unjudgedHeader = "Not judged (the decider was not asked):";

/**
 * netpol-analyzer's `list --exposure` output: the connlist, then "Exposure
 * Analysis Result:" with its egress and ingress lines (the workload first,
 * padded to the longest exposed workload in txt) and, in txt, the workloads
 * no policy protects. Representatives ktl could not ask the decider about
 * follow in a section of their own (absent when there are none, so the
 * output is then upstream's).
 */
export function formatExposure(list: ConnList, exposure: Exposure, format: ConnlistFormat): string {
  const { egress, ingress, unprotected, unjudged } = exposure;
  switch (format) {
    case "txt": {
      const width = Math.max(0, ...exposure.exposed.map((p) => p.length));
      const row = (l: ExposureLine, arrow: string) =>
        `${l.peer.padEnd(width)} \t${arrow} \t${l.other} : ${l.conn}\n`;
      let out = formatTxt(list);
      if (out !== "") out += "\n";
      out += "Exposure Analysis Result:\n";
      if (egress.length) out += "Egress Exposure:\n" + egress.map((l) => row(l, "=>")).join("");
      if (ingress.length)
        out +=
          (egress.length ? "\n" : "") + "Ingress Exposure:\n" + ingress.map((l) => row(l, "<=")).join("");
      if (unprotected.length)
        out += "\nWorkloads not protected by network policies:\n" + unprotected.map((u) => `${u}\n`).join("");
      if (unjudged.length) out += `\n${unjudgedHeader}\n` + unjudged.map((u) => `${u}\n`).join("");
      return out;
    }
    case "json": {
      const item = (src: string, dst: string, conn: string) => ({ src, dst, conn });
      // Go marshals an empty slice of the result as null; upstream's consumers read that.
      const orNull = <T>(a: T[]) => (a.length ? a : null);
      const doc = {
        connlist_results: list.lines.map((l) => item(l.src, l.dst, l.conn)),
        exposure_results: {
          egress_exposure: orNull(egress.map((l) => item(l.peer, l.other, l.conn))),
          ingress_exposure: orNull(ingress.map((l) => item(l.other, l.peer, l.conn))),
        },
        ...(unjudged.length ? { unjudged } : {}),
      };
      return JSON.stringify(doc, null, 2) + "\n";
    }
    case "md": {
      let out = formatMd(list) + "## Exposure Analysis Result:\n";
      const table = (head: string, lines: ExposureLine[]) =>
        `| ${head} | conn |\n|-----|-----|------|\n` +
        lines.map((l) => `| ${l.peer} | ${l.other} | ${l.conn} |\n`).join("");
      if (egress.length) out += "### Egress Exposure:\n" + table("src | dst", egress);
      if (ingress.length) out += "\n### Ingress Exposure:\n" + table("dst | src", ingress);
      if (unjudged.length) out += `\n### ${unjudgedHeader}\n` + unjudged.map((u) => `- ${u}\n`).join("");
      return out;
    }
    case "csv": {
      const rows: string[][] = [["Exposure Analysis Result:", "", ""]];
      const body = (lines: ExposureLine[]) => lines.map((l) => [l.peer, l.other, l.conn]);
      if (egress.length) rows.push(["Egress Exposure:", "", ""], ["src", "dst", "conn"], ...body(egress));
      if (ingress.length) rows.push(["Ingress Exposure:", "", ""], ["dst", "src", "conn"], ...body(ingress));
      if (unjudged.length) rows.push([unjudgedHeader, "", ""], ...unjudged.map((u) => [u, "", ""]));
      return formatCsv(list) + rows.map((r) => r.map(csvField).join(",")).join("\n") + "\n";
    }
    default:
      throw new Error(`--exposure writes ${EXPOSURE_FORMATS.join(", ")}, not ${format}`);
  }
}
