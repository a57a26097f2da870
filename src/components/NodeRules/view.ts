/** Pure helpers of the Node rules panel: which lines to render, and how a walk marks them. */
import type { RuleBranchView } from "../../engine/analysis/index.ts";

export const LINE_HEIGHT = 18;
const OVERSCAN = 20;

/** Lines [first, last) to render for a scroll position: those in view plus a margin, so scrolling never shows a gap. */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  total: number,
  lineHeight = LINE_HEIGHT,
  overscan = OVERSCAN,
): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / lineHeight) - overscan);
  const last = Math.min(total, Math.ceil((scrollTop + viewport) / lineHeight) + overscan);
  return { first, last: Math.max(first, last) };
}

/** The scrollTop that puts `line` about a third down the viewport (where the eye goes first). */
export function scrollTopFor(
  line: number,
  viewport: number,
  total: number,
  lineHeight = LINE_HEIGHT,
): number {
  const max = Math.max(0, total * lineHeight - viewport);
  return Math.min(max, Math.max(0, line * lineHeight - Math.floor(viewport / 3)));
}

export interface LineMark {
  /** 1-based positions of this rule in the walk (a rule can be met twice). */
  steps: number[];
  /** Trace hop the rule carries out (from its first step). */
  hop?: number;
  /** The rule dropped or rejected the packet. */
  stop?: "drop" | "reject";
}

/** The marks a branch puts on the printed lines, keyed by 0-based line. */
export function lineMarks(branch: RuleBranchView | undefined): Map<number, LineMark> {
  const marks = new Map<number, LineMark>();
  if (!branch) return marks;
  branch.steps.forEach((s, i) => {
    if (s.line < 0) return;
    let m = marks.get(s.line);
    if (!m) {
      m = { steps: [] };
      if (s.hop !== undefined) m.hop = s.hop;
      marks.set(s.line, m);
    }
    m.steps.push(i + 1);
    if (i === branch.stoppedAt && (s.action === "drop" || s.action === "reject")) m.stop = s.action;
  });
  return marks;
}

/** The branch shown first: one that stops the packet (that is what the user is looking for), else the likeliest. */
export function defaultBranch(branches: readonly RuleBranchView[]): number {
  const stopped = branches.findIndex((b) => b.stoppedAt !== undefined);
  if (stopped >= 0) return stopped;
  let best = 0;
  branches.forEach((b, i) => {
    if (b.probability > branches[best]!.probability) best = i;
  });
  return best;
}

/** The line to bring into view for a branch: the rule that stopped it, else its DNAT, else its first rule. */
export function focusLine(branch: RuleBranchView | undefined): number | undefined {
  if (!branch || !branch.steps.length) return undefined;
  const stop = branch.stoppedAt !== undefined ? branch.steps[branch.stoppedAt] : undefined;
  return (stop ?? branch.steps.find((s) => s.action === "dnat") ?? branch.steps[0]!).line;
}

/** A rule line's kind, for colouring only (the text is printed as the node prints it). */
export function lineKind(text: string): "comment" | "table" | "chain" | "drop" | "rule" | "other" {
  if (text.startsWith("#")) return "comment";
  if (text.startsWith("*") || text === "COMMIT") return "table";
  if (text.startsWith(":")) return "chain";
  if (/ -j (DROP|REJECT)\b|: (drop|reject)\b| (drop|reject)$/.test(text)) return "drop";
  if (text.startsWith("-A ")) return "rule";
  return "other";
}

/** One branch of a walk in a few words ("dropped by filter KUBE-SERVICES, rule 5 of 5"); the engine's note says the rest. */
export function branchSummary(b: RuleBranchView): string {
  const stop = b.stoppedAt !== undefined ? b.steps[b.stoppedAt] : undefined;
  // iptables names its table, nftables its chain, IPVS the virtual server that has no real server.
  const where = (s: RuleBranchView["steps"][number]) =>
    s.table === "ipvs"
      ? "the IPVS virtual server, which has no real server"
      : s.table === "kube-proxy"
        ? `nftables chain ${s.chain}`
        : `${s.table} ${s.chain}`;
  if (stop)
    return `${b.verdict === "reject" ? "rejected" : "dropped"} by ${where(stop)}, rule ${b.stoppedAt! + 1} of ${b.steps.length}`;
  return `${b.endpoint ? `DNAT to ${b.endpoint}` : "no DNAT"}${b.masquerade ? ", masqueraded" : ""}, accepted after ${b.steps.length} rule${b.steps.length === 1 ? "" : "s"}`;
}
