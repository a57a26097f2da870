/**
 * A lesson check as the question the playground asks: its source,
 * destination, protocol and, for an L7 check, its HTTP request and headers
 * parsed as `ktl trace --http/--header` parse them (engine/http/request.ts).
 */
import type { TraceQuery } from "../../engine/analysis/index.ts";
import { addHttpHeader, parseHttpRequestLine } from "../../engine/http/request.ts";
import type { LessonCheck } from "../../../scenarios/lessons.ts";

export function questionOf(c: LessonCheck): TraceQuery {
  const q: TraceQuery = { from: c.from, to: c.to, protocol: c.protocol ?? "TCP" };
  if (!c.http) return q;
  let req = parseHttpRequestLine(c.http);
  for (const h of c.headers ?? []) if (!("error" in req)) req = addHttpHeader(req, h);
  if (!("error" in req)) q.http = { method: req.method, path: req.path, headers: req.headers };
  return q;
}

/** The check's button text: "frontend → api:80 · GET /api/orders [host: shop.example.com]". */
export function questionLabel(c: LessonCheck): string {
  const to = c.to.replace(/^(service|pod):/, "");
  const proto = c.protocol && c.protocol !== "TCP" ? ` ${c.protocol}` : "";
  const http = c.http ? ` · ${c.http}${(c.headers ?? []).map((h) => ` [${h}]`).join("")}` : "";
  return `${c.from.replace(/^(pod|external):/, "")} → ${to}${proto}${http}`;
}
