/**
 * `ktl connlist -o svg`: the connectivity list as a picture that opens in any
 * browser, with no Graphviz installed (netpol-analyzer's svg runs `dot`).
 * One column per namespace (outside addresses and the ingress controller
 * first), a box per workload, an arrow per permitted connection labelled with
 * its ports, as the `dot` format groups them. Only nodes some line names are
 * drawn. Pure text: names are escaped, nothing is fetched.
 */
import { INGRESS_CONTROLLER, type ConnList } from "./index.ts";

const BOX = { width: 180, height: 34, gapY: 16, gapX: 150, top: 64, left: 24 };

const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** About how wide 13 px text is: boxes are sized to their names, never cut. */
const textWidth = (s: string, px = 13) => Math.ceil(s.length * px * 0.6);

export function formatSvg(list: ConnList): string {
  const used = new Set(list.lines.flatMap((l) => [l.src, l.dst]));
  const byName = new Map(list.nodes.map((n) => [n.name, n]));
  // Columns: outside the cluster and the ingress controller, then each namespace by name.
  const columns = new Map<string, string[]>();
  for (const name of [...used].sort()) {
    const n = byName.get(name);
    const col = n?.kind === "workload" && n.namespace !== undefined ? n.namespace : "";
    columns.set(col, [...(columns.get(col) ?? []), name]);
  }
  const order = [...columns.keys()].sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1));
  const labelOf = (name: string) => {
    const n = byName.get(name);
    return n?.kind === "workload" && n.workload
      ? `${n.workload.name} [${n.workload.kind}]`
      : name === INGRESS_CONTROLLER
        ? "ingress controller"
        : name.replace(/\[External\]$/, "");
  };
  // A column is as wide as its widest name (and its header).
  const colWidth = order.map((col) =>
    Math.max(
      BOX.width,
      textWidth(col === "" ? "outside the namespaces" : `namespace ${col}`) + 8,
      ...columns.get(col)!.map((n) => textWidth(labelOf(n)) + 20),
    ),
  );
  const colX: number[] = [];
  let x0 = BOX.left;
  for (const w of colWidth) {
    colX.push(x0);
    x0 += w + BOX.gapX;
  }
  const at = new Map<string, { x: number; y: number; w: number }>();
  order.forEach((col, i) =>
    columns
      .get(col)!
      .forEach((name, j) =>
        at.set(name, { x: colX[i]!, y: BOX.top + j * (BOX.height + BOX.gapY), w: colWidth[i]! }),
      ),
  );
  const rows = Math.max(1, ...[...columns.values()].map((c) => c.length));
  const width = x0 - BOX.gapX + BOX.left;
  const height = BOX.top + rows * (BOX.height + BOX.gapY) + 16;
  const out = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `<title>ktl connlist: ${list.lines.length} permitted connection${list.lines.length === 1 ? "" : "s"}</title>`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#3d6b2a"/></marker></defs>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
  ];
  order.forEach((col, i) => {
    const x = colX[i]!;
    out.push(
      `<text class="namespace" x="${x}" y="${BOX.top - 16}" font-weight="600" fill="#1b2230">${esc(col === "" ? "outside the namespaces" : `namespace ${col}`)}</text>`,
    );
  });
  for (const l of list.lines) {
    const a = at.get(l.src)!;
    const b = at.get(l.dst)!;
    const right = b.x >= a.x;
    const x1 = right ? a.x + a.w : a.x;
    const x2 = right ? b.x : b.x + b.w;
    const y1 = a.y + BOX.height / 2;
    const y2 = b.y + BOX.height / 2;
    // Within one column the arrow bows out to the right, so it does not cross the boxes between.
    const same = a.x === b.x;
    const bow = same ? 60 + Math.abs(y2 - y1) / 4 : Math.abs(x2 - x1) / 2;
    const c1 = same ? a.x + a.w + bow : x1 + (right ? bow : -bow);
    const c2 = same ? b.x + b.w + bow : x2 - (right ? bow : -bow);
    const sx = same ? a.x + a.w : x1;
    const ex = same ? b.x + b.w : x2;
    out.push(
      `<path class="edge" d="M${sx} ${y1}C${c1} ${y1} ${c2} ${y2} ${ex} ${y2}" fill="none" stroke="#3d6b2a" stroke-width="1.4" marker-end="url(#arrow)" data-src="${esc(l.src)}" data-dst="${esc(l.dst)}"><title>${esc(`${l.src} => ${l.dst} : ${l.conn}`)}</title></path>`,
    );
    // The label a third of the way from the source: the two directions of a pair keep theirs apart.
    const t = 1 / 3;
    const bez = (p0: number, p1: number, p2: number, p3: number) =>
      (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3;
    const mx = bez(sx, c1, c2, ex);
    const my = bez(y1, y1, y2, y2);
    out.push(
      `<text class="conn" x="${mx}" y="${my - 3}" text-anchor="middle" font-size="11" fill="#2b5a1c" stroke="#ffffff" stroke-width="3" paint-order="stroke">${esc(l.conn)}</text>`,
    );
  }
  for (const [name, p] of at) {
    const n = byName.get(name);
    const label = labelOf(name);
    out.push(
      `<g class="node" data-name="${esc(name)}"><title>${esc(name)}</title><rect x="${p.x}" y="${p.y}" width="${p.w}" height="${BOX.height}" rx="6" fill="${n?.kind === "workload" ? "#eef3fb" : "#fdf3e1"}" stroke="#5b6578"/><text x="${p.x + 10}" y="${p.y + 22}" fill="#1b2230">${esc(label)}</text></g>`,
    );
  }
  out.push("</svg>");
  return out.join("\n") + "\n";
}
