/**
 * The drawn graph as a standalone SVG, read off the rendered React Flow
 * view: node boxes and labels, edge paths with their verdict colours, edge
 * labels. Colours are the computed ones, so the export matches the theme.
 */
const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function translateOf(el: HTMLElement): { x: number; y: number } {
  const m = /translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px\)/.exec(el.style.transform);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : { x: 0, y: 0 };
}

function color(v: string, fallback: string): string {
  return !v || v === "rgba(0, 0, 0, 0)" || v === "transparent" ? fallback : v;
}

export function graphSvg(root: HTMLElement): string | undefined {
  const nodes = [...root.querySelectorAll<HTMLElement>(".react-flow__node")];
  const edges = [...root.querySelectorAll<SVGGElement>('[data-testid="flow-edge"]')];
  if (nodes.length === 0) return undefined;
  const parts: string[] = [];
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  const bg = color(getComputedStyle(document.body).backgroundColor, "#ffffff");
  const text = color(getComputedStyle(document.body).color, "#1b2230");
  // Containers first (zones, then nodes), leaves on top, as on screen.
  const rank = (el: HTMLElement) =>
    el.classList.contains("react-flow__node-zone")
      ? 0
      : el.classList.contains("react-flow__node-node")
        ? 1
        : 2;
  nodes.sort((a, b) => rank(a) - rank(b));
  for (const el of nodes) {
    const { x, y } = translateOf(el);
    const w = el.offsetWidth || Number.parseFloat(el.style.width) || 0;
    const h = el.offsetHeight || Number.parseFloat(el.style.height) || 0;
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x + w);
    maxY = Math.max(maxY, y + h);
    const inner = (el.firstElementChild as HTMLElement | null) ?? el;
    const cs = getComputedStyle(inner);
    const fill = color(cs.backgroundColor, "none");
    const stroke = color(cs.borderTopColor, "#999999");
    const dashed = cs.borderTopStyle === "dashed" ? ' stroke-dasharray="4 3"' : "";
    const id = inner.dataset.id ?? el.dataset.id ?? "";
    parts.push(
      `<g data-id="${esc(id)}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" fill="${fill}" stroke="${stroke}"${dashed}/>`,
    );
    const title = (inner.querySelector(".name, .title")?.textContent ?? "").trim();
    const sub = (inner.querySelector(".sub")?.textContent ?? "").trim();
    const container = rank(el) < 2;
    if (title)
      parts.push(
        `<text x="${x + 8}" y="${y + (container ? 14 : 17)}" font-size="${container ? 11 : 12}" font-weight="600" fill="${color(cs.color, text)}">${esc(title)}</text>`,
      );
    if (sub && !container)
      parts.push(
        `<text x="${x + 8}" y="${y + 31}" font-size="10" fill="${color(cs.color, text)}" opacity="0.75">${esc(sub)}</text>`,
      );
    parts.push("</g>");
  }
  const markers = new Map<string, string>();
  const edgeParts: string[] = [];
  for (const g of edges) {
    const path = g.querySelector<SVGPathElement>(".react-flow__edge-path");
    const d = path?.getAttribute("d");
    if (!path || !d) continue;
    const cs = getComputedStyle(path);
    const stroke = color(cs.stroke, "#888888");
    const key = `m${markers.size}`;
    if (![...markers.values()].includes(stroke)) markers.set(key, stroke);
    const markerId = [...markers.entries()].find(([, c]) => c === stroke)![0];
    const dash =
      cs.strokeDasharray && cs.strokeDasharray !== "none"
        ? ` stroke-dasharray="${esc(cs.strokeDasharray)}"`
        : "";
    edgeParts.push(
      `<path d="${esc(d)}" fill="none" stroke="${stroke}" stroke-width="${Number.parseFloat(cs.strokeWidth) || 1.5}"${dash} marker-end="url(#${markerId})" data-verdict="${esc(g.dataset.verdict ?? "")}" data-source="${esc(g.dataset.source ?? "")}" data-target="${esc(g.dataset.target ?? "")}"/>`,
    );
  }
  for (const label of root.querySelectorAll<HTMLElement>(".ktl-edge-label")) {
    const m = /translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px\)\s*$/.exec(label.style.transform);
    if (!m) continue;
    const cs = getComputedStyle(label);
    edgeParts.push(
      `<text x="${m[1]}" y="${m[2]}" font-size="10" text-anchor="middle" dominant-baseline="middle" fill="${color(cs.color, text)}" stroke="${bg}" stroke-width="3" paint-order="stroke">${esc((label.textContent ?? "").trim())}</text>`,
    );
  }
  const pad = 24;
  const vx = minX - pad,
    vy = minY - pad,
    vw = maxX - minX + 2 * pad,
    vh = maxY - minY + 2 * pad;
  const defs = [...markers.entries()]
    .map(
      ([id, c]) =>
        `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${c}"/></marker>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="${vx} ${vy} ${vw} ${vh}" width="${Math.round(vw)}" height="${Math.round(vh)}" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">
<title>Kube Traffic Lab graph</title>
<defs>${defs}</defs>
<rect x="${vx}" y="${vy}" width="${vw}" height="${vh}" fill="${bg}"/>
${parts.join("\n")}
${edgeParts.join("\n")}
</svg>
`;
}

/** Renders an SVG document to PNG at `scale`. */
export function svgToPng(svg: string, scale = 2): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.round(img.width * scale));
      canvas.height = Math.max(1, Math.round(img.height * scale));
      const ctx = canvas.getContext("2d");
      if (!ctx) return reject(new Error("no 2D canvas"));
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0);
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the PNG could not be made"))), "image/png");
    };
    img.onerror = () => reject(new Error("the graph could not be drawn as an image"));
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  });
}

export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}
