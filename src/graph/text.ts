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
