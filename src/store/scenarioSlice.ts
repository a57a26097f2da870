/**
 * A paste (or an opened file) is a new scenario (issue 30): the question,
 * the open lesson and its step, the opened boxes and the selection belong to
 * the text they were made for, so they reset; the filters are kept until the
 * new analysis arrives and then lose what no longer applies (a namespace,
 * port or policy layer the new input does not have). One Undo puts back the
 * text and all of it. A paste that mostly keeps the text's lines (a reworked
 * copy of the same manifests) is an edit, not a new scenario.
 */
import type { Analysis } from "../engine/analysis/index.ts";
import { graphPorts } from "../graph/model.ts";
import { flowLayer } from "../graph/verdicts.ts";
import type { AppState, Filters, ScenarioSlice, ScenarioSnapshot, SliceCreator } from "./types.ts";
import { NO_WHAT_IF } from "./workshopSlice.ts";

export type { ScenarioSlice, ScenarioSnapshot };

/** Share of the new text's lines that must be in the old one for a whole-text paste to count as an edit. */
export const SAME_SCENARIO_LINES = 0.6;

/** A whole-text replacement that keeps most lines (a reworked copy) is the same scenario. */
export function sameScenario(before: string, after: string): boolean {
  const lines = (t: string) =>
    t
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
  const after_ = lines(after);
  if (after_.length === 0) return true;
  const old = new Set(lines(before));
  let kept = 0;
  for (const l of after_) if (old.has(l)) kept++;
  return kept / after_.length >= SAME_SCENARIO_LINES;
}

function snapshot(s: AppState): ScenarioSnapshot {
  return {
    text: s.text,
    scenarioId: s.scenarioId,
    question: s.question,
    selection: s.selection,
    filters: s.filters,
    graphOpen: s.graphOpen,
    answerShown: s.answerShown,
    presenting: s.presenting,
    presenterStep: s.presenterStep,
    predictions: s.predictions,
  };
}

/** The filters that still apply to an analysis: namespaces it has, a port it draws, a layer it can decide with. */
export function filtersFor(f: Filters, a: Analysis): Filters {
  const namespaces = new Set([
    ...a.pods.map((p) => p.namespace),
    ...a.services.map((s) => s.namespace),
    ...a.namespaces.map((n) => n.name),
  ]);
  const flows = a.reach ? [...a.flows, ...a.reach.flows] : a.flows;
  const ports = new Set(graphPorts(a).map((p) => p.key));
  const out: Filters = {
    hiddenNamespaces: f.hiddenNamespaces.filter((n) => namespaces.has(n)),
    port: f.port === "all" || ports.has(f.port) ? f.port : "all",
    onlyDrops: f.onlyDrops,
  };
  if (f.layer && f.layer !== "all" && flows.some((x) => flowLayer(x) === f.layer)) out.layer = f.layer;
  return out;
}

const sameFilters = (a: Filters, b: Filters) =>
  a.port === b.port &&
  a.onlyDrops === b.onlyDrops &&
  (a.layer ?? "all") === (b.layer ?? "all") &&
  a.hiddenNamespaces.join("\n") === b.hiddenNamespaces.join("\n");

export const createScenarioSlice: SliceCreator<ScenarioSlice> = (set, get) => ({
  scenarioUndo: undefined,
  pruneFiltersAt: undefined,
  newScenario: (text, origin, what) =>
    set((s) => {
      const undo = snapshot(s);
      const revision = s.revision + 1;
      return {
        text,
        origin,
        revision,
        scenarioId: undefined,
        question: undefined,
        selection: undefined,
        hopFocus: undefined,
        rulesNode: undefined,
        graphOpen: {},
        answerShown: false,
        presenting: false,
        presenterStep: -1,
        predictions: {},
        outcomes: { revision: -1, byKey: {} },
        whatIf: NO_WHAT_IF,
        scenarioUndo: undo,
        pruneFiltersAt: revision,
        notice: {
          kind: "info",
          text: `${what} is a new scenario: the question${undo.scenarioId ? ", the lesson" : ""} and the opened boxes were reset, and filters that no longer apply will be.`,
          undoScenario: true,
        },
      };
    }),
  analysisForNewScenario: (revision, a) => {
    const s = get();
    if (s.pruneFiltersAt !== revision) return;
    const filters = filtersFor(s.filters, a);
    set(
      sameFilters(filters, s.filters)
        ? { pruneFiltersAt: undefined }
        : { filters, pruneFiltersAt: undefined },
    );
  },
  undoNewScenario: () => {
    const u = get().scenarioUndo;
    if (!u) return;
    get().replaceText(u.text, "restore", u.scenarioId);
    set({
      question: u.question,
      selection: u.selection,
      filters: u.filters,
      graphOpen: u.graphOpen,
      answerShown: u.answerShown,
      presenting: u.presenting,
      presenterStep: u.presenterStep,
      predictions: u.predictions,
      scenarioUndo: undefined,
      pruneFiltersAt: undefined,
      notice: { kind: "info", text: "The previous scenario is back, with its question and view." },
    });
  },
});
