/**
 * Edge categories: how each engine verdict is drawn. Colour is never alone:
 * every category has its own colour (checked under colour-blindness
 * simulations in verdicts.test.ts), line style, arrowhead and glyph, and the
 * legend is drawn from this same table.
 *
 * A new category is one entry here plus the rule in `categoryOf` that picks
 * it: a drop by a cluster policy tier is one (`tier`); a CNI dialect's drop
 * and an L7 weighted route are notes (a tag on the label, below).
 */
import type { Analysis, DropCause, Flow, Verdict } from "../engine/analysis/index.ts";

export type Glyph = "check" | "cross" | "bar" | "half" | "shield";
export type Arrow = "triangle" | "tee" | "open";

export interface EdgeCategory {
  id: string;
  verdict: Verdict;
  label: string;
  /** CSS variable holding the colour; the values per theme are in `PALETTE`. */
  colour: string;
  /** SVG stroke-dasharray, "" for solid. */
  dash: string;
  arrow: Arrow;
  glyph: Glyph;
}

export const CATEGORIES: readonly EdgeCategory[] = [
  {
    id: "allow",
    verdict: "allow",
    label: "allowed",
    colour: "--allow",
    dash: "",
    arrow: "triangle",
    glyph: "check",
  },
  {
    id: "drop",
    verdict: "drop",
    label: "dropped by NetworkPolicy or CNI",
    colour: "--drop",
    dash: "9 4",
    arrow: "tee",
    glyph: "cross",
  },
  {
    // A cluster-scoped tier (ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy) dropped it:
    // no namespace's NetworkPolicy can change that (Admin) or none governs the pod (Baseline). The label names the tier.
    id: "tier",
    verdict: "drop",
    label: "dropped by a cluster tier (Admin, Baseline)",
    colour: "--tier",
    dash: "10 3 2 3 2 3",
    arrow: "tee",
    glyph: "shield",
  },
  {
    id: "traffic",
    verdict: "drop",
    label: "dropped by traffic policy",
    colour: "--traffic",
    dash: "2 4",
    arrow: "tee",
    glyph: "bar",
  },
  {
    id: "partial",
    verdict: "partial",
    label: "partly allowed",
    colour: "--partial",
    dash: "14 4 2 4",
    arrow: "open",
    glyph: "half",
  },
];

/**
 * Notes: how an edge is worded beyond its verdict. They keep their
 * verdict's colour, dash and glyph (the verdict is what the eye sorts by)
 * and add a tag in front of the edge's label, also listed in the legend:
 * - weight: a router's route to a Service, tagged with its share ("90%");
 * - cni: dropped by a Cilium or Calico policy (the CNI's own dialect, not
 *   NetworkPolicy), tagged with the dialect;
 * - l7: allowed for some HTTP requests only (a Cilium L7 rule), tagged
 *   with the requests it lets through; others get 403;
 * - test: an expectation of the Tests tab (a `ktl test` file) fails on this
 *   part of its path (testMarks.ts); the tag comes before any other note's.
 */
export type EdgeNoteId = "weight" | "cni" | "l7" | "test";

export interface EdgeNote {
  id: EdgeNoteId;
  /** The legend's words. */
  label: string;
  /** The tag's example in the legend. */
  sample: string;
}

/** The tag of an edge on which a test's expectation fails. */
export const TEST_FAILED_TAG = "✗ test failed";

export const NOTES: readonly EdgeNote[] = [
  { id: "weight", label: "share of a router's requests", sample: "90%" },
  { id: "cni", label: "decided by a CNI policy (Cilium, Calico)", sample: "Cilium ✕" },
  { id: "l7", label: "only some HTTP requests (others get 403)", sample: "HTTP GET /api/*" },
  { id: "test", label: "an expectation of the Tests tab fails here", sample: TEST_FAILED_TAG },
];

const CNI_KINDS: Record<string, string> = {
  CiliumNetworkPolicy: "Cilium",
  CiliumClusterwideNetworkPolicy: "Cilium",
  GlobalNetworkPolicy: "Calico",
  Tier: "Calico",
};

/** The dialect of a deciding object, when it is a CNI's own policy ("Cilium", "Calico"). */
export function cniDialectOf(ref: { kind: string } | undefined, apiGroup?: string): string | undefined {
  if (!ref) return undefined;
  if (CNI_KINDS[ref.kind]) return CNI_KINDS[ref.kind];
  if (ref.kind === "NetworkPolicy" && apiGroup?.includes("projectcalico")) return "Calico";
  return undefined;
}

/** A share as its tag: 0.9 -> "90%", 1/3 -> "33.3%". */
export function shareText(w: number): string {
  return `${Math.round(w * 1000) / 10}%`;
}

/** The tag an edge's note puts in front of its label. */
export function noteTag(
  note: EdgeNoteId,
  e: { weights?: number[]; dialect?: string | undefined; l7?: string[]; verdict: Verdict },
): string {
  if (note === "weight") return (e.weights ?? []).map(shareText).join(" + ");
  if (note === "test") return TEST_FAILED_TAG;
  if (note === "cni") return `${e.dialect ?? "CNI"}${e.verdict === "allow" ? "" : " ✕"}`;
  const l7 = e.l7 ?? [];
  return `HTTP ${l7.slice(0, 2).join(", ")}${l7.length > 2 ? ` +${l7.length - 2}` : ""} only`;
}

/** Colours per theme (the CSS variables of styles.css carry the same values). */
export const PALETTE: Record<"light" | "dark", Record<string, string>> = {
  light: {
    "--allow": "#0c69c2",
    "--drop": "#8f3304",
    "--tier": "#1a1a1a",
    "--traffic": "#5c0b5b",
    "--partial": "#928b18",
  },
  dark: {
    "--allow": "#7cc4f2",
    "--drop": "#fd5e17",
    "--tier": "#456a5e",
    "--traffic": "#b43fd0",
    "--partial": "#fff484",
  },
};

const BY_ID = new Map(CATEGORIES.map((c) => [c.id, c]));

/** A cluster tier that decided an edge's drops (the engine's `Flow.tier`). */
export type Tier = "Admin" | "Baseline";

export function categoryOf(verdict: Verdict, dropCause?: DropCause, tier?: Tier): EdgeCategory {
  if (verdict === "drop")
    return BY_ID.get(dropCause === "traffic-policy" ? "traffic" : tier ? "tier" : "drop")!;
  return BY_ID.get(verdict)!;
}

/** The tag a tier-dropped edge's label starts with ("Admin ✕ · guard"): the tier in words, not colour alone. */
export function tierTag(tier: Tier): string {
  return `${tier} ✕`;
}

/**
 * The graph's "Decided by" filter: the policy layer whose decision an edge
 * shows (the engine says which: `Flow.tier`, `Flow.layer`, `decidedBy`).
 */
export type LayerFilter = "all" | "Admin" | "NetworkPolicy" | "Baseline" | "CNI";

export const LAYER_FILTERS: readonly { id: LayerFilter; label: string }[] = [
  { id: "all", label: "all layers" },
  { id: "Admin", label: "Admin tier" },
  { id: "NetworkPolicy", label: "NetworkPolicy" },
  { id: "Baseline", label: "Baseline tier" },
  { id: "CNI", label: "CNI policy" },
];

/** The layer that decided a flow, as the filter names it; undefined when no policy did (kube-proxy, default allow). */
export function flowLayer(
  f: Pick<Flow, "tier" | "layer" | "decidedBy">,
): Exclude<LayerFilter, "all"> | undefined {
  if (f.tier) return f.tier;
  if (f.layer || cniDialectOf(f.decidedBy[0])) return "CNI";
  return f.decidedBy.some((r) => r.kind === "NetworkPolicy") ? "NetworkPolicy" : undefined;
}

/**
 * The layer that dropped a flow, in the words the graph's labels and drop list use ("NetworkPolicy",
 * "Admin tier", "Cilium", "traffic policy"): the engine says which (`Flow.tier`, `layer`, `dropCause`, `decidedBy`).
 */
export function dropLayerWord(f: Pick<Flow, "tier" | "layer" | "decidedBy" | "dropCause">): string {
  if (f.dropCause === "traffic-policy") return "traffic policy";
  if (f.tier) return `${f.tier} tier`;
  if (f.layer) return f.layer === "CiliumNetworkPolicy" ? "Cilium" : "Calico";
  const dialect = cniDialectOf(f.decidedBy[0]);
  if (dialect) return dialect;
  return f.decidedBy.some((r) => r.kind === "NetworkPolicy") ? "NetworkPolicy" : "policy";
}

/**
 * The pairs a layer filter cannot place: the compact records (the dropped pairs, and the admitted ones past the
 * engine's listing limit) that name no deciding layer (under the cluster tiers, and a sender the decider answers
 * pair by pair), which no layer but "all" draws. Undefined when the filter is "all" or every record is placed.
 */
export function unplacedByLayer(
  a: Analysis | undefined,
  filter: LayerFilter | undefined,
): { dropped: number; admitted: number } | undefined {
  if (!a?.reach || !filter || filter === "all") return undefined;
  let dropped = 0;
  let admitted = 0;
  for (const d of a.reach.drops) if (flowLayer(d) === undefined) dropped += d.count;
  for (const d of a.reach.allowed ?? []) if (flowLayer(d) === undefined) admitted += d.count;
  return dropped + admitted > 0 ? { dropped, admitted } : undefined;
}

export function layerPasses(filter: LayerFilter | undefined, f: Pick<Flow, "tier" | "layer" | "decidedBy">) {
  return !filter || filter === "all" || flowLayer(f) === filter;
}

/** SVG path data of each glyph, drawn in a 12x12 box centred on (0, 0). */
export const GLYPH_PATHS: Record<Glyph, string> = {
  check: "M -3.5 0 L -1 2.8 L 3.8 -2.8",
  cross: "M -3 -3 L 3 3 M 3 -3 L -3 3",
  bar: "M -3.6 0 L 3.6 0",
  half: "M 0 -4.2 A 4.2 4.2 0 0 1 0 4.2 Z",
  shield: "M 0 -4.4 L 3.8 -2.8 L 3.2 1.6 L 0 4.4 L -3.2 1.6 L -3.8 -2.8 Z",
};

/** Arrowhead path data of each arrow kind, in a 10x10 marker box (the graph's markers and the slide export draw them). */
export const ARROW_PATHS: Record<Arrow, { d: string; fill: boolean }> = {
  triangle: { d: "M 0 0 L 10 5 L 0 10 z", fill: true },
  tee: { d: "M 9 0 L 9 10 M 0 5 L 9 5", fill: false },
  open: { d: "M 0 0 L 10 5 L 0 10", fill: false },
};
