/**
 * A graph export laid out as a 16:9 slide: a title band (the scenario and the
 * question with its verdict), the graph scaled to fit the middle, and the
 * legend at the bottom, drawn from the same table as the edges
 * (src/graph/verdicts.ts). Pure: graphSvg.ts reads the drawn graph off the
 * page and hands its SVG here.
 */
import { charsFor } from "../../graph/text.ts";
import { ARROW_PATHS, CATEGORIES, GLYPH_PATHS, PALETTE, type EdgeCategory } from "../../graph/verdicts.ts";

/** The slide's size in SVG units (16:9); the PNG is drawn at twice this. */
export const SLIDE = { width: 1600, height: 900, margin: 40, titleBand: 150, legendBand: 64 } as const;

export const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Text cut at the end to `max` characters, with an ellipsis. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(1, max - 1)).trimEnd()}…`;
}

/** Text in at most `lines` lines of `width` characters, broken between words; the last line ends in an ellipsis if cut. */
export function wrap(s: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let rest = s.trim();
  while (rest && out.length < lines) {
    if (rest.length <= width) {
      out.push(rest);
      rest = "";
      break;
    }
    if (out.length === lines - 1) {
      out.push(clip(rest, width));
      rest = "";
      break;
    }
    const cut = rest.lastIndexOf(" ", width);
    const at = cut > width / 2 ? cut : width;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  return out;
}

export interface SlideInput {
  /** The scenario's name. */
  title: string;
  /** The question and its verdict, when one was asked. */
  subtitle?: string | undefined;
  /** The graph's SVG elements and the box they occupy, in graph units. */
  graph: { body: string; box: { x: number; y: number; width: number; height: number } };
  /** The verdict colours by CSS variable (`--allow` ...); the light palette when missing. */
  colours?: Record<string, string>;
  background?: string;
  text?: string;
  muted?: string;
}

/** Marker id of a verdict category's arrowhead in an export. */
export const markerId = (category: string) => `ktl-x-arrow-${category}`;

function colourOf(c: EdgeCategory, colours: Record<string, string> | undefined): string {
  return colours?.[c.colour] || PALETTE.light[c.colour] || "#888888";
}

export function markerDefs(colours?: Record<string, string>): string {
  return CATEGORIES.map((c) => {
    const a = ARROW_PATHS[c.arrow];
    const col = colourOf(c, colours);
    return `<marker id="${markerId(c.id)}" viewBox="-1 -1 12 12" refX="9" refY="5" markerWidth="13" markerHeight="13" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="${a.d}" fill="${a.fill ? col : "none"}" stroke="${col}" stroke-width="2"/></marker>`;
  }).join("");
}

/** A verdict glyph in a circle at (x, y), as the graph draws it at an edge's middle. */
export function glyphSvg(c: EdgeCategory, x: number, y: number, colour: string, bg: string, r = 7.5): string {
  const k = r / 7.5;
  return `<g transform="translate(${x} ${y}) scale(${k})"><circle r="7.5" fill="${bg}" stroke="${colour}" stroke-width="1.6"/><path d="${GLYPH_PATHS[c.glyph]}" fill="${c.glyph === "half" ? colour : "none"}" stroke="${colour}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></g>`;
}

const LOOP_WORDS = "drops inside a box";
const QUIET_WORDS = "refused on both sides (isolation)";

/** The legend row: one item per category, line style, arrowhead, glyph and words. */
export function legendSvg(
  x: number,
  y: number,
  colours: Record<string, string> | undefined,
  bg: string,
  text: string,
  categories: readonly EdgeCategory[] = CATEGORIES.filter((c) => c.id !== "tier"),
  loops = false,
  quiet = false,
): string {
  // One row; scaled down when the categories' words would run past the slide's margin.
  const room = SLIDE.width - SLIDE.margin - x;
  const natural =
    76 +
    categories.reduce((w, c) => w + 76 + 20 + Math.ceil(c.label.length * 20 * 0.52) + 36, 0) +
    (loops ? 46 + Math.ceil(LOOP_WORDS.length * 20 * 0.52) + 36 : 0) +
    (quiet ? 76 + Math.ceil(QUIET_WORDS.length * 20 * 0.52) + 36 : 0);
  const k = Math.min(1, room / natural);
  const parts = [
    `<g data-testid="legend" font-size="20"${k < 1 ? ` transform="translate(${x} ${y}) scale(${k.toFixed(3)}) translate(${-x} ${-y})"` : ""}>`,
    `<text x="${x}" y="${y + 7}" font-weight="600" fill="${text}">Edges</text>`,
  ];
  let at = x + 76;
  for (const c of categories) {
    const col = colourOf(c, colours);
    parts.push(
      `<g data-category="${c.id}"><line x1="${at}" y1="${y}" x2="${at + 64}" y2="${y}" stroke="${col}" stroke-width="3"${c.dash ? ` stroke-dasharray="${c.dash}"` : ""} marker-end="url(#${markerId(c.id)})"/>`,
      glyphSvg(c, at + 30, y, col, bg, 9),
      `<text x="${at + 76}" y="${y + 7}" fill="${text}">${esc(c.label)}</text></g>`,
    );
    at += 76 + 20 + Math.ceil(c.label.length * 20 * 0.52) + 36;
  }
  if (loops)
    // The loop the graph draws on a folded box whose members drop among themselves.
    parts.push(
      `<g data-shape="loop"><rect x="${at}" y="${y - 10}" width="12" height="20" rx="3" fill="none" stroke="${text}" stroke-opacity="0.6" stroke-width="2"/><path d="M ${at + 12} ${y - 6} C ${at + 36} ${y - 16}, ${at + 36} ${y + 16}, ${at + 12} ${y + 6}" fill="none" stroke="${colourOf(
        CATEGORIES.find((c) => c.id === "drop")!,
        colours,
      )}" stroke-width="3" stroke-dasharray="6 3"/><text x="${at + 46}" y="${y + 7}" fill="${text}">${LOOP_WORDS}</text></g>`,
    );
  if (quiet) {
    // The isolation hairline: a drop's dash, thin and faint, no glyph.
    const at2 = at + (loops ? 46 + Math.ceil(LOOP_WORDS.length * 20 * 0.52) + 36 : 0);
    parts.push(
      `<g data-shape="quiet"><line x1="${at2}" y1="${y}" x2="${at2 + 64}" y2="${y}" stroke="${colourOf(
        CATEGORIES.find((c) => c.id === "drop")!,
        colours,
      )}" stroke-width="1.5" stroke-opacity="0.35" stroke-dasharray="9 4"/><text x="${at2 + 76}" y="${y + 7}" fill="${text}">${QUIET_WORDS}</text></g>`,
    );
  }
  parts.push("</g>");
  return parts.join("");
}

export function slideSvg(input: SlideInput): string {
  const { width: W, height: H, margin: M, titleBand, legendBand } = SLIDE;
  const bg = input.background ?? "#ffffff";
  const text = input.text ?? "#1b2230";
  const muted = input.muted ?? "#5b6578";
  const b = input.graph.box;
  const pad = 16;
  const area = { x: M, y: titleBand, width: W - 2 * M, height: H - titleBand - legendBand - 12 };
  const title = clip(input.title, charsFor(area.width, 34, true));
  const perLine = charsFor(area.width, 22);
  const subtitle = input.subtitle ? wrap(input.subtitle, perLine, 2) : [];
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">
<title>${esc(input.title)}${input.subtitle ? ` · ${esc(input.subtitle)}` : ""}</title>
<defs>${markerDefs(input.colours)}</defs>
<rect x="0" y="0" width="${W}" height="${H}" fill="${bg}"/>
<g data-testid="slide-title"><text x="${M}" y="${M + 22}" font-size="34" font-weight="700" fill="${text}">${esc(title)}</text>${subtitle
    .map(
      (line, i) => `<text x="${M}" y="${M + 60 + i * 28}" font-size="22" fill="${muted}">${esc(line)}</text>`,
    )
    .join("")}</g>
<line x1="${M}" y1="${titleBand - 12}" x2="${W - M}" y2="${titleBand - 12}" stroke="${muted}" stroke-opacity="0.35"/>
<svg data-testid="slide-graph" x="${area.x}" y="${area.y}" width="${area.width}" height="${area.height}" viewBox="${b.x - pad} ${b.y - pad} ${b.width + 2 * pad} ${b.height + 2 * pad}" preserveAspectRatio="xMidYMid meet">
${input.graph.body}
</svg>
<line x1="${M}" y1="${H - legendBand}" x2="${W - M}" y2="${H - legendBand}" stroke="${muted}" stroke-opacity="0.35"/>
${legendSvg(
  M,
  H - legendBand / 2,
  input.colours,
  bg,
  text,
  // Every edge style the picture draws: the cluster tier's entry when it draws a tier-dropped edge, the loop, the isolation hairline.
  CATEGORIES.filter((c) => c.id !== "tier" || input.graph.body.includes('data-category="tier"')),
  input.graph.body.includes('data-loop="true"'),
  input.graph.body.includes('data-quiet="true"'),
)}
</svg>
`;
}
