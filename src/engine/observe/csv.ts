/**
 * ktl's plain CSV of observed flows, for any tool that can print one:
 *
 *   source,destination,port,protocol,verdict,count
 *   shop/frontend,shop/backend,8080,TCP,forwarded,120
 *
 * An optional header row names the columns (any order; `reporter` src|dst is
 * read too); without one, the columns are in that order. Cells are RFC 4180
 * (double quotes, `""` inside them); `#` starts a comment line.
 *
 * - source / destination: `NS/POD`, `NS/WORKLOAD` (a Deployment's name: its
 *   pods), `NS/KIND/NAME`, `NS/PREFIX*` (pods whose names start so), an IP
 *   address (a pod's, or a Service's ClusterIP), or `service:NS/NAME`.
 * - protocol: TCP (default), UDP or SCTP; count: 1 (default) or more.
 * - verdict: forwarded (also allowed, allow, accepted) or dropped (also
 *   denied, deny, drop, rejected).
 */
import { PROTOCOLS, type Protocol } from "../model/protocol.ts";
import { parseIP } from "../model/ip.ts";
import type { FlowEnd, FlowError, ObservedFlow } from "./types.ts";

const COLUMNS = ["source", "destination", "port", "protocol", "verdict", "count", "reporter"] as const;
type Column = (typeof COLUMNS)[number];

const FORWARDED = new Set(["forwarded", "allowed", "allow", "accepted", "accept"]);
const DROPPED = new Set(["dropped", "denied", "deny", "drop", "rejected", "reject"]);

/** One line's cells (RFC 4180), or an error for an unclosed quote. */
function cells(line: string): string[] | { error: string } {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"' && cur.trim() === "") {
      quoted = true;
      cur = "";
    } else if (c === ",") {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  if (quoted) return { error: "a quoted cell is not closed" };
  out.push(cur.trim());
  return out;
}

/** A CSV end: an IP, `service:NS/NAME`, `NS/KIND/NAME`, `NS/NAME` or `NS/PREFIX*`. */
export function parseEnd(text: string): FlowEnd | { error: string } {
  const t = text.trim();
  if (t === "") return { error: "an empty source or destination" };
  if (parseIP(t.replace(/^\[(.*)\]$/, "$1"))) return { ip: t.replace(/^\[(.*)\]$/, "$1"), text: t };
  const svc = /^(?:service|svc):([^/\s]+)\/([^/\s]+)$/.exec(t);
  if (svc) return { namespace: svc[1]!, service: `${svc[1]}/${svc[2]}`, text: t };
  const parts = t.split("/");
  if (parts.some((p) => p === "") || parts.length < 2 || parts.length > 3)
    return { error: `"${t}" is not NS/NAME, NS/KIND/NAME, an IP address or service:NS/NAME` };
  if (parts.length === 3)
    return { namespace: parts[0]!, workloads: [{ kind: parts[1]!, name: parts[2]! }], text: t };
  const name = parts[1]!;
  if (name.endsWith("*")) return { namespace: parts[0]!, name: name.slice(0, -1), aggregated: true, text: t };
  return { namespace: parts[0]!, name, workloads: [{ name }], text: t };
}

export function readCsv(text: string, file: string): { flows: ObservedFlow[]; errors: FlowError[] } {
  const flows: ObservedFlow[] = [];
  const errors: FlowError[] = [];
  let order: Column[] | undefined;
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "" || raw.trimStart().startsWith("#")) return;
    const row = cells(raw);
    if (!Array.isArray(row)) return void errors.push({ file, line, message: row.error });
    if (!order) {
      const names = row.map((c) => c.toLowerCase());
      if (names.includes("source") && names.includes("destination")) {
        const unknown = names.filter((n) => !(COLUMNS as readonly string[]).includes(n));
        if (unknown.length)
          errors.push({
            file,
            line,
            message: `unknown column ${unknown.map((u) => `"${u}"`).join(", ")} (columns: ${COLUMNS.join(", ")})`,
          });
        order = names as Column[];
        return;
      }
      order = [...COLUMNS];
    }
    const get = (c: Column): string | undefined => {
      const at = order!.indexOf(c);
      const v = at < 0 ? undefined : row[at];
      return v === undefined || v === "" ? undefined : v;
    };
    const fail = (message: string) => errors.push({ file, line, message });
    const src = parseEnd(get("source") ?? "");
    const dst = parseEnd(get("destination") ?? "");
    if ("error" in src) return void fail(`source: ${src.error}`);
    if ("error" in dst) return void fail(`destination: ${dst.error}`);
    const portText = get("port") ?? "";
    const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65535)) return void fail(`port "${portText}" is not a number from 1 to 65535`);
    const protoText = (get("protocol") ?? "TCP").toUpperCase();
    if (!(PROTOCOLS as readonly string[]).includes(protoText))
      return void fail(`protocol "${get("protocol")}" is not TCP, UDP or SCTP`);
    const verdictText = (get("verdict") ?? "").toLowerCase();
    const verdict = FORWARDED.has(verdictText)
      ? "forwarded"
      : DROPPED.has(verdictText)
        ? "dropped"
        : undefined;
    if (!verdict) return void fail(`verdict "${get("verdict") ?? ""}" is not forwarded or dropped`);
    const countText = get("count") ?? "1";
    const count = /^\d+$/.test(countText) ? Number(countText) : NaN;
    if (!(count >= 1 && Number.isSafeInteger(count)))
      return void fail(`count "${countText}" is not a whole number from 1`);
    const flow: ObservedFlow = {
      file,
      line,
      format: "csv",
      src,
      dst,
      port,
      protocol: protoText as Protocol,
      verdict,
      count,
    };
    const reporter = get("reporter")?.toLowerCase();
    if (reporter === "src" || reporter === "dst") flow.reporter = reporter;
    else if (reporter !== undefined) return void fail(`reporter "${reporter}" is not src or dst`);
    flows.push(flow);
  });
  return { flows, errors };
}
