/**
 * The strings an edge keeps in sets (its ports, its reason lines), one object per value: the answer's records
 * repeat a few of them thousands of times, and a string built per record is hashed again per record.
 */

/**
 * `${port}/${protocol}`, one string per pair: an answer's flows and drop records name a few ports, and each
 * edge keeps a set of them (a string built per record is hashed again per record).
 */
const portKeys = new Map<string, Map<number, string>>();
export function portKey(port: number, protocol: string): string {
  let byPort = portKeys.get(protocol);
  if (!byPort) portKeys.set(protocol, (byPort = new Map()));
  let k = byPort.get(port);
  if (k === undefined) byPort.set(port, (k = `${port}/${protocol}`));
  return k;
}

/**
 * An edge's reason line `${port}: ${reason}`, one string per pair while the answer's reasons stay the same
 * strings (they do across edits: unchanged items are kept): built and hashed once, not per edge and record.
 * Bounded: past 50,000 lines of a port the memo starts again.
 */
const reasonLines = new Map<string, Map<string, string>>();
export function reasonLine(port: string, reason: string): string {
  let byReason = reasonLines.get(port);
  if (!byReason) reasonLines.set(port, (byReason = new Map()));
  let line = byReason.get(reason);
  if (line === undefined) {
    if (byReason.size >= 50_000) byReason.clear();
    byReason.set(reason, (line = `${port}: ${reason}`));
  }
  return line;
}
