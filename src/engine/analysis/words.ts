/**
 * Words of a flow's reason that several judges share. A reason names counts
 * that belong to the flow (its admitted senders), never a count of the whole
 * cluster: a replica edit anywhere would change every flow's words, and the
 * worker would send every flow again (worker/delta.ts).
 */

/** "(106 senders are admitted; the others are refused)", after a refused sender's reason. */
export function admittedSenders(allowed: number): string {
  return ` (${allowed} ${allowed === 1 ? "sender is" : "senders are"} admitted; the others are refused)`;
}
