/**
 * The shapes of `ktl observe`'s answer, apart from the code that fills them
 * (compare.ts, hypotheses.ts, suggest.ts), so that those import no one
 * another in a circle.
 */
import type { BuildOptions } from "../load/index.ts";
import type { Model, Protocol } from "../model/types.ts";
import type { ParseResult } from "../parse/manifests.ts";
import type { MatchHow } from "./match.ts";
import type { ObservedDecidedBy, PredictedVerdict, Prediction, Question } from "./predict.ts";
import type { FlowSet } from "./types.ts";

export type ObserveCase =
  | "agree-allowed"
  | "agree-dropped"
  | "observed-forwarded-but-predicted-dropped"
  | "observed-dropped-but-predicted-allowed"
  | "partial";

export const DISAGREEMENTS: ReadonlySet<ObserveCase> = new Set([
  "observed-forwarded-but-predicted-dropped",
  "observed-dropped-but-predicted-allowed",
]);

export interface ObservedRow {
  /** The source workload, `NS/KIND/NAME`. */
  src: string;
  /** The destination workload `NS/KIND/NAME`, or `service:NS/NAME`. */
  dst: string;
  port: number;
  protocol: Protocol;
  observed: { forwarded: number; dropped: number };
  /** Flow records aggregated here. */
  records: number;
  predicted: PredictedVerdict;
  case: ObserveCase;
  decidedBy?: ObservedDecidedBy;
  /** The decider's (or trace's) words for its answer. */
  reason: string;
  /** A cause the decider confirmed by a what-if, or what no tested cause explains. Set on disagreements. */
  explanation?: string;
  /** The pair asked: `pod:NS/NAME -> pod:NS/NAME` (or `service:NS/NAME`), and how each end was matched. */
  asked: { src: string; dst: string; matchedBy: [MatchHow, MatchHow]; pairs: number };
  /** Hubble's drop_reason_desc values among the drops. */
  dropReasons?: string[];
  /** The policies the flow log itself names as deciding (Hubble's *_by fields, Calico's policies), and whether the input has each. */
  logged?: { policy: string; inInput: boolean; records: number }[];
  /** Where the first record is. */
  first: { file: string; line: number };
}

export interface UnmatchedFlow {
  src: string;
  dst: string;
  port: number;
  protocol: Protocol;
  verdict: "forwarded" | "dropped";
  count: number;
  records: number;
  reason: string;
  first: { file: string; line: number };
  /** The end that did match (a workload key or `service:NS/NAME`), when one did. */
  srcMatched?: string;
  dstMatched?: string;
  /** The destination's namespace as the record names it (DNS to kube-system is told apart by it). */
  dstNamespace?: string;
}

export interface SkippedSummary {
  reason: string;
  records: number;
  first: { file: string; line: number };
}

export interface ObserveReport {
  /** Flow records read (matched or not; skipped records not included). */
  records: number;
  /** Records whose both ends matched the model. */
  matched: number;
  unmatched: UnmatchedFlow[];
  skippedFlows: SkippedSummary[];
  flows: ObservedRow[];
  disagreements: number;
  hypotheses: Hypothesis[];
  /** What enforces policy in the modelled cluster (the decider's words). */
  judgedBy: string;
  formats: FlowSet["formats"];
}

export interface ObserveInput {
  parsed: ParseResult;
  options?: BuildOptions;
  /** The model of `parsed` under `options`, when the caller built it already. */
  model?: Model;
}

/** One aggregated row while it is built: its questions stay, so a what-if model can be asked the same. */
export interface Group {
  row: ObservedRow;
  questions: Question[];
  prediction: Prediction;
}

export type HypothesisKind =
  | "default-deny-ingress"
  | "default-deny-egress"
  | "isolate-workload-ingress"
  | "policy-not-enforced"
  | "nothing-enforced";

export interface Hypothesis {
  kind: HypothesisKind;
  /** The cause, in words: "a default-deny ingress NetworkPolicy in namespace shop". */
  text: string;
  /** Which disagreement it addresses. */
  explains: "drops" | "forwards";
  /** Observed drops (or forwards) of disagreeing rows that the what-if model predicts. */
  explained: number;
  /** All observed drops (or forwards) of that case. */
  of: number;
  /** Observed flows of the other verdict that the what-if model would then predict wrong. */
  contradicted: number;
  /** The decider confirmed it explains some (explained > 0). */
  confirmed: boolean;
  /** The NetworkPolicy added, for the ones that add one. */
  yaml?: string;
  /** Indices into the report's flows that it explains. */
  rows: number[];
}

/** The report with what built it: the model and each row's questions (for `suggestPolicies`). */
export interface ObserveAnalysis {
  report: ObserveReport;
  groups: Group[];
  model: Model;
}
