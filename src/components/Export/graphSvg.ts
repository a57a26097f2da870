/**
 * The drawn graph as a 16:9 slide (slide.ts), read off the rendered React
 * Flow view: node boxes with their names shortened to fit (never spilling
 * out of a box), edge paths with their verdict's line style, arrowhead and
 * glyph, the traced path as drawn (lit elements outlined, the rest dimmed),
 * and edge labels. Colours are the computed ones, so the export matches the theme.
 */
import { CATEGORIES } from "../../graph/verdicts.ts";
import { charsFor, middleEllipsis } from "../../graph/text.ts";
import { clip, esc, glyphSvg, markerId, slideSvg } from "./slide.ts";

function translateOf(el: HTMLElement): { x: number; y: number } {
  const m = /translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px\)/.exec(el.style.transform);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : { x: 0, y: 0 };
}

function color(v: string, fallback: string): string {
  return !v || v === "rgba(0, 0, 0, 0)" || v === "transparent" ? fallback : v;
}

/** An element's words with a space between its parts (`zone` + `eu-west-1a` is "zone eu-west-1a"). */
export function wordsOf(el: Element | null): string {
  if (!el) return "";
  const parts = [...el.childNodes].map((c) => (c.textContent ?? "").trim()).filter(Boolean);
  return parts.join(" ").replace(/\s+/g, " ");
}

const opacityAttr = (v: string) => {
  const o = Number.parseFloat(v);
  return Number.isFinite(o) && o < 0.999 ? ` opacity="${o.toFixed(2)}"` : "";
};

export interface SlideTitle {
  title: string;
  subtitle?: string | undefined;
}

/** A box's text as drawn: the paths lens's lines whole, the topology lens's name and second line fitted to the box. */
function nodeTextSvg(
  inner: HTMLElement,
  x: number,
  y: number,
  w: number,
  container: boolean,
  ink: string,
): string[] {
  const out: string[] = [];
  const nameEl = inner.querySelector<HTMLElement>(".name, .title");
  const subEl = inner.querySelector<HTMLElement>(".sub");
  const right = inner.querySelector(".toggle") ? 30 : 8;
  const room = Math.max(10, w - 8 - right);
  // The paths lens's boxes are sized to their lines (graph/text.ts): each line as drawn, whole.
  const nameLines = nameEl ? [...nameEl.querySelectorAll<HTMLElement>(":scope > .line")] : [];
  if (nameEl && nameLines.length) {
    const size = Number.parseFloat(getComputedStyle(nameEl).fontSize) || 15;
    const subSize = subEl ? Number.parseFloat(getComputedStyle(subEl).fontSize) || 13.5 : 13.5;
    const subLines = subEl ? [...subEl.querySelectorAll<HTMLElement>(":scope > .line")] : [];
    const lines = [
      ...nameLines.map((l) => ({ t: wordsOf(l), size, bold: true })),
      ...subLines.map((l) => ({ t: wordsOf(l), size: subSize, bold: false })),
    ];
    let at = y + 6;
    for (const l of lines) {
      at += l.size * 1.3;
      out.push(
        `<text x="${x + 10}" y="${at - l.size * 0.3}" font-size="${l.size}"${l.bold ? ' font-weight="600"' : ' opacity="0.75"'} fill="${ink}">${esc(l.t)}</text>`,
      );
    }
  } else if (nameEl) {
    const size = Number.parseFloat(getComputedStyle(nameEl).fontSize) || (container ? 12 : 14);
    const words = middleEllipsis(wordsOf(nameEl), charsFor(room, size, true));
    if (words)
      out.push(
        `<text x="${x + 8}" y="${y + 6 + size}" font-size="${size}" font-weight="600" fill="${ink}">${esc(words)}</text>`,
      );
    if (subEl && !container) {
      const subSize = Number.parseFloat(getComputedStyle(subEl).fontSize) || 11;
      const sub = middleEllipsis(wordsOf(subEl), charsFor(room, subSize));
      if (sub)
        out.push(
          `<text x="${x + 8}" y="${y + 6 + size * 1.3 + subSize * 1.15}" font-size="${subSize}" fill="${ink}" opacity="0.75">${esc(sub)}</text>`,
        );
    }
  }
  return out;
}

/** The edge labels shown, as on screen: each line whole. */
function labelsSvg(root: HTMLElement, panel: string, text: string): string[] {
  const out: string[] = [];
  for (const label of root.querySelectorAll<HTMLElement>(".ktl-edge-label")) {
    const m = /translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px\)\s*$/.exec(label.style.transform);
    if (!m) continue;
    const cs = getComputedStyle(label);
    const size = Number.parseFloat(cs.fontSize) || 10;
    // As wide and tall as on screen, each of its lines whole (the paths lens's labels take two lines, never cut).
    const lw = label.offsetWidth || 170;
    const lh = label.offsetHeight || size * 1.5;
    const x = Number(m[1]);
    const y = Number(m[2]);
    const lines = [...label.children].map((c) => wordsOf(c)).filter(Boolean);
    const shown = lines.length ? lines : [clip(wordsOf(label), charsFor(lw - 10, size))];
    const step = lh / shown.length;
    out.push(
      `<g${opacityAttr(cs.opacity)}><rect x="${x - lw / 2}" y="${y}" width="${lw}" height="${lh}" rx="5" fill="${panel}" stroke="${color(cs.borderTopColor, text)}" stroke-width="1.5"/>${shown
        .map(
          (t, i) =>
            `<text x="${x}" y="${y + step * (i + 0.5)}" font-size="${size}" text-anchor="middle" dominant-baseline="central" fill="${color(cs.color, text)}">${esc(t)}</text>`,
        )
        .join("")}</g>`,
    );
  }
  return out;
}

export function graphSvg(root: HTMLElement, slide: SlideTitle): string | undefined {
  const nodes = [...root.querySelectorAll<HTMLElement>(".react-flow__node")];
  const edges = [...root.querySelectorAll<SVGGElement>('[data-testid="flow-edge"]')];
  if (nodes.length === 0) return undefined;
  const parts: string[] = [];
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  const bodyCs = getComputedStyle(document.body);
  const bg = color(bodyCs.backgroundColor, "#ffffff");
  const text = color(bodyCs.color, "#1b2230");
  const rootCs = getComputedStyle(document.documentElement);
  const colours: Record<string, string> = {};
  for (const c of CATEGORIES) {
    const v = rootCs.getPropertyValue(c.colour).trim();
    if (v) colours[c.colour] = v;
  }
  const muted = rootCs.getPropertyValue("--muted").trim() || "#5b6578";
  // Containers first (zones, then nodes), leaves on top, as on screen.
  const rank = (el: HTMLElement) =>
    el.classList.contains("react-flow__node-zone") || el.classList.contains("react-flow__node-bucket")
      ? 0
      : el.classList.contains("react-flow__node-node")
        ? 1
        : 2;
  nodes.sort((a, b) => rank(a) - rank(b));
  for (const el of nodes) {
    // React Flow places every node at its absolute position, children included.
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
    const radius = Math.min(18, Number.parseFloat(cs.borderTopLeftRadius) || 6);
    parts.push(`<g data-id="${esc(id)}"${opacityAttr(cs.opacity)}>`);
    // The traced path and the presenter's hop are outlined on screen: the export outlines them too.
    const ow = Number.parseFloat(cs.outlineWidth) || 0;
    if (cs.outlineStyle !== "none" && ow > 0) {
      const off = (Number.parseFloat(cs.outlineOffset) || 0) + ow / 2;
      parts.push(
        `<rect x="${x - off}" y="${y - off}" width="${w + 2 * off}" height="${h + 2 * off}" rx="${radius + off}" fill="none" stroke="${color(cs.outlineColor, "#1f6feb")}" stroke-width="${ow}" data-lit="true"/>`,
      );
    }
    parts.push(
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${radius}" fill="${fill}" stroke="${stroke}" stroke-width="${Number.parseFloat(cs.borderTopWidth) || 1}"${dashed}/>`,
    );
    parts.push(...nodeTextSvg(inner, x, y, w, rank(el) < 2, color(cs.color, text)));
    parts.push("</g>");
  }
  const edgeParts: string[] = [];
  for (const g of edges) {
    const path = g.querySelector<SVGPathElement>(".react-flow__edge-path");
    const d = path?.getAttribute("d");
    if (!path || !d) continue;
    const cs = getComputedStyle(path);
    const stroke = color(cs.stroke, "#888888");
    const cat = CATEGORIES.find((c) => c.id === g.dataset.category);
    const dash =
      cs.strokeDasharray && cs.strokeDasharray !== "none"
        ? ` stroke-dasharray="${esc(cs.strokeDasharray)}"`
        : "";
    const lit = g.classList.contains("lit") || g.classList.contains("focus");
    edgeParts.push(
      `<g${opacityAttr(getComputedStyle(g).opacity)}${lit ? ' data-lit="true"' : ""}><path d="${esc(d)}"${opacityAttr(cs.opacity)}${g.dataset.quiet ? ' data-quiet="true"' : ""} fill="none" stroke="${stroke}" stroke-width="${Number.parseFloat(cs.strokeWidth) || 1.5}"${dash}${cat ? ` marker-end="url(#${markerId(cat.id)})"` : ""} data-verdict="${esc(g.dataset.verdict ?? "")}" data-source="${esc(g.dataset.source ?? "")}" data-target="${esc(g.dataset.target ?? "")}"${cat ? ` data-category="${cat.id}"` : ""}${g.dataset.source === g.dataset.target ? ' data-loop="true"' : ""}/>`,
    );
    const at = /translate\(\s*(-?[\d.]+)[ ,]\s*(-?[\d.]+)\s*\)/.exec(
      g.querySelector(".edge-glyph")?.getAttribute("transform") ?? "",
    );
    if (cat && at) edgeParts.push(glyphSvg(cat, Number(at[1]), Number(at[2]), stroke, bg));
    edgeParts.push("</g>");
  }
  // Edge labels as on screen: a box in the panel's colour, bordered in the edge's, centred under the edge's middle.
  edgeParts.push(...labelsSvg(root, rootCs.getPropertyValue("--panel").trim() || bg, text));
  return slideSvg({
    title: slide.title,
    subtitle: slide.subtitle,
    graph: {
      body: `${parts.join("\n")}\n${edgeParts.join("\n")}`,
      box: { x: minX, y: minY, width: maxX - minX, height: maxY - minY },
    },
    colours,
    background: bg,
    text,
    muted,
  });
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
