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
