/**
 * The first drawn graph (or, for a page that opens on the Matrix or Node
 * rules tab, the first matrix or rules), as a promise: Monaco's large chunk
 * waits for it (or for a short while at most), so that loading the editor
 * never delays the first picture of the scenario, and start.ts removes the
 * crash flag (loading.ts) when it comes. Here rather than in app/: the graph canvas
 * marks it and the editor waits for it, and components never import app/.
 */
let resolve: () => void = () => {};
export const firstDraw = new Promise<void>((r) => (resolve = r));

export function markFirstDraw(): void {
  resolve();
}

/** Resolves at the first draw, or after `ms`, whichever comes first. */
export function afterFirstDraw(ms: number): Promise<void> {
  return Promise.race([firstDraw, new Promise<void>((r) => setTimeout(r, ms))]);
}
