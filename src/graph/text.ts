import { textWidth } from "./textWidth.ts";

/** Names shortened in the middle, so the part that tells replicas apart (the suffix) stays. */
export function middleEllipsis(text: string, max: number): string {
  if (text.length <= max || max < 5) return text;
  const tail = Math.ceil((max - 1) / 2);
  const head = max - 1 - tail;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** Characters that fit a width at a font size (an average glyph is a little over half the font size wide). */
export function charsFor(width: number, fontSize: number, bold = false): number {
  return Math.max(5, Math.floor(width / (fontSize * (bold ? 0.7 : 0.6))));
}

const SEPARATORS = new Set(["-", ".", "_", "/"]);

/**
 * Where each name's distinguishing part starts among its siblings: after the
 * prefix it shares with its nearest sibling (in name order), cut back to the
 * separator before it (`payments-staging` among `payments-prod`: 9, `staging`).
 * 0 when it shares nothing.
 */
export function distinguishingStarts(names: readonly string[]): Map<string, number> {
  const sorted = [...new Set(names)].sort();
  const lcp = (a: string, b: string) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  const out = new Map<string, number>();
  sorted.forEach((name, i) => {
    const shared = Math.max(
      i > 0 ? lcp(name, sorted[i - 1]!) : 0,
      i + 1 < sorted.length ? lcp(name, sorted[i + 1]!) : 0,
    );
    let start = 0;
    for (let j = Math.min(shared, name.length) - 1; j >= 0; j--)
      if (SEPARATORS.has(name[j]!)) {
        start = j + 1;
        break;
      }
    out.set(name, start);
  });
  return out;
}

/**
 * A name shortened to `max` characters keeping its distinguishing part (from
 * `start`, see distinguishingStarts): the shared prefix is cut, not the suffix
 * that tells siblings apart. Falls back to a middle ellipsis.
 */
export function shortenKeeping(text: string, start: number, max: number): string {
  if (text.length <= max || max < 5) return text;
  const rest = text.slice(start);
  if (start <= 0) return middleEllipsis(text, max);
  // The distinguishing part alone is too long: its end stays (where replicas and environments differ).
  if (rest.length > max - 2) return `…${rest.slice(rest.length - (max - 1))}`;
  return `${text.slice(0, max - 1 - rest.length)}…${rest}`;
}

// ---------- names whole: boxes sized to their text, wrapped before anything is cut ----------

/** The paths lens's box metrics (graph units), kept in step with graph.css (.rf-path). */
export const BOX = {
  name: 15,
  sub: 13.5,
  nameLine: 19.5,
  subLine: 17.5,
  /** Left padding and border; the right side keeps room for the open/fold toggle. */
  left: 11,
  right: 32,
  /** Top and bottom padding and borders (a folded namespace's double border is the thickest), and the inbound bar. */
  vertical: 18,
  minWidth: 150,
  maxWidth: 300,
  subWidth: 232,
} as const;

/** A name's pieces: each ends at a separator, so a line breaks after "-", ".", "_", "/" or a space. */
function pieces(text: string): string[] {
  return text.match(/[^-._/ ]+[-._/ ]*|[-._/ ]+/g) ?? [text];
}

/**
 * Text wrapped into lines no wider than `room` px, breaking after separators (a piece wider than
 * the room alone is broken between characters). Nothing is left out: the lines joined are the text.
 */
export function wrapText(text: string, room: number, fontSize: number, bold = false): string[] {
  const lines: string[] = [];
  let cur = "";
  const fits = (t: string) => textWidth(t.trimEnd(), fontSize, bold) <= room;
  for (const p of pieces(text)) {
    if (fits(cur + p)) {
      cur += p;
      continue;
    }
    if (cur) lines.push(cur);
    cur = "";
    if (fits(p)) {
      cur = p;
      continue;
    }
    for (const ch of p) {
      if (cur && !fits(cur + ch)) {
        lines.push(cur);
        cur = "";
      }
      cur += ch;
    }
  }
  if (cur) lines.push(cur);
  return lines.map((l) => l.trimEnd());
}

/** Parts of a second line (" · " between them), wrapped at part boundaries: a port, an IP, a namespace is never split. */
export function wrapParts(parts: readonly string[], room: number, fontSize: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const p of parts.filter(Boolean)) {
    const next = cur ? `${cur} · ${p}` : p;
    if (!cur || textWidth(next, fontSize) <= room) cur = next;
    else {
      lines.push(cur);
      cur = p;
    }
  }
  if (cur) lines.push(cur);
  return lines;
}

export interface BoxText {
  /** The name, on one to three lines (the first may start with a count, `3× `). */
  name: string[];
  /** The second part (kind, namespace, IP, ports), on one or two lines. */
  sub: string[];
  width: number;
  height: number;
}

/**
 * A box sized to its text: as wide as its name and second line need, up to maxWidth (BOX.maxWidth
 * unless the layout needs narrower boxes); past it the name wraps (after separators) and the second
 * line wraps between its parts.
 */
export function boxText(
  name: string,
  subParts: readonly string[],
  prefix = "",
  maxWidth: number = BOX.maxWidth,
): BoxText {
  const chrome = BOX.left + BOX.right;
  const full = prefix + name;
  // A little over the measured widths: glyphs are hinted a touch wider at some zooms.
  const nameW = textWidth(full, BOX.name, true) * 1.03 + 2;
  const subW = textWidth(subParts.filter(Boolean).join(" · "), BOX.sub) * 1.03 + 2;
  // The name sets the width (up to maxWidth); a long second line widens the box up to subWidth, then wraps
  // between its parts, each of which fits whole.
  const partW = Math.max(0, ...subParts.filter(Boolean).map((p) => textWidth(p, BOX.sub) * 1.03 + 2));
  // A part of the second line is never split, so it widens the box past maxWidth if it must.
  const width = Math.min(
    Math.max(BOX.minWidth, maxWidth, Math.ceil(partW + chrome)),
    Math.max(
      BOX.minWidth,
      Math.ceil(nameW + chrome),
      Math.ceil(partW + chrome),
      Math.min(BOX.subWidth, Math.ceil(subW + chrome)),
    ),
  );
  const room = width - chrome;
  const nameLines = nameW <= room ? [full] : wrapText(full, room / 1.03 - 2, BOX.name, true);
  const sub = subParts.some(Boolean) ? wrapParts(subParts, room / 1.03 - 2, BOX.sub) : [];
  const height = Math.ceil(BOX.vertical + nameLines.length * BOX.nameLine + sub.length * BOX.subLine);
  return { name: nameLines, sub, width, height };
}

/** A path-lens element's box text (its name, with a workload's replica count, and its second line's parts). */
export function nodeBoxText(
  n: { kind: string; label: string; count?: number; short?: string; parts?: string[]; sublabel?: string },
  maxWidth?: number,
): BoxText {
  const prefix = n.kind === "group" ? `${n.count}× ` : "";
  const name = n.short ?? n.label;
  // Narrowed (the layout's maxWidth), a name still breaks only after its separators, its count kept with its first piece.
  const whole = maxWidth === undefined ? undefined : Math.max(maxWidth, wholePiecesWidth(name, prefix));
  return boxText(name, n.parts ?? [n.sublabel ?? ""], prefix, whole);
}

/** The narrowest box whose name breaks only after separators (the count, `3× `, on the first piece's line). */
export function wholePiecesWidth(name: string, prefix = ""): number {
  const ps = pieces(name);
  if (prefix && ps.length > 0) ps[0] = prefix + ps[0]!;
  const widest = Math.max(0, ...ps.map((p) => textWidth(p.trimEnd(), BOX.name, true)));
  // boxText wraps in `room / 1.03 - 2` of a box's inner width.
  return Math.ceil((widest + 2) * 1.03 + BOX.left + BOX.right);
}

/**
 * The part of a pod's name that tells it from the other pods of its workload: the name after
 * `WORKLOAD-`, less a pod-template-hash every sibling shares (`reviews-v1-7f8c9d6b5-9fqdr` among
 * its ReplicaSet's pods: `9fqdr`; a StatefulSet's `backend-1`: `1`); the whole name for a bare pod.
 */
export function podSuffix(name: string, workload: string, siblings: readonly string[]): string {
  if (!name.startsWith(`${workload}-`)) return name;
  const rest = (n: string) => n.slice(workload.length + 1);
  const own = rest(name);
  const cut = own.lastIndexOf("-");
  if (cut <= 0) return own;
  const hash = own.slice(0, cut + 1);
  return siblings.every((s) => s.startsWith(`${workload}-`) && rest(s).startsWith(hash))
    ? own.slice(cut + 1)
    : own;
}
