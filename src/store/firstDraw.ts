/**
 * The first drawn graph, as a promise: Monaco's large chunk waits for it (or
 * for a short while at most), so that loading the editor never delays the
 * first picture of the scenario. Here rather than in app/: the graph canvas
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
