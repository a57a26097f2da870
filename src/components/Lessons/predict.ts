/**
 * Predict, then reveal: a lesson opens with its verdicts hidden (neutral
 * edges, no policy labels), the learner predicts each of its questions (the
 * verdict and, where a Service has several backends, which one receives it),
 * and the reveal shows the engine's trace and says what was right. Pure: the
 * verdict judged against is always the engine's trace of that question, never
 * the lesson's own note of it.
 */
import type { Analysis, TraceView, Verdict } from "../../engine/analysis/index.ts";
import { lessonById } from "../../../scenarios/lessons.ts";

export interface Prediction {
  verdict?: Verdict | undefined;
  /** A pod id (`pod:NS/NAME`). */
  backend?: string | undefined;
}

/** What the engine answered for one of the lesson's questions. */
export interface Outcome {
  verdict: Verdict;
  /** The pods that receive the request (allowed, with a chance above zero). */
  receiving: string[];
}

export interface Judgement {
  verdict: { said?: Verdict | undefined; is: Verdict; right: boolean };
  backend?: { said: string; receiving: string[]; right: boolean };
}

export const VERDICT_WORDS: Record<Verdict, string> = {
  allow: "allowed",
  drop: "dropped",
  partial: "partly allowed",
};

/** The key of one lesson question (its trace query). */
export const checkKey = (c: { from: string; to: string; protocol?: string | undefined }) =>
  `${c.from}|${c.to}|${c.protocol ?? "TCP"}`;

/** Verdicts stay hidden while a lesson is open and its answer is not revealed. */
export function verdictsHidden(s: { scenarioId: string | undefined; answerShown: boolean }): boolean {
  return !s.answerShown && !!s.scenarioId && lessonById(s.scenarioId) !== undefined;
}

/** The pods a Service port sends to (the engine's endpoint flows), for "which backend": none when fewer than two. */
export function backendOptions(analysis: Pick<Analysis, "flows"> | undefined, to: string): string[] {
  if (!analysis || !to.startsWith("service:")) return [];
  const pods = new Set<string>();
  for (const f of analysis.flows) if (f.kind === "endpoint" && f.traceTo === to) pods.add(f.to);
  return pods.size >= 2 ? [...pods].sort() : [];
}

export function outcomeOf(t: {
  verdict: TraceView["verdict"];
  endpoints: readonly { pod?: string | undefined; verdict: string; probability: number }[];
}): Outcome {
  return {
    verdict: t.verdict,
    receiving: t.endpoints
      .filter((e) => e.pod && e.verdict === "allow" && e.probability > 0)
      .map((e) => `pod:${e.pod}`),
  };
}

export function judge(p: Prediction | undefined, o: Outcome): Judgement {
  const j: Judgement = { verdict: { said: p?.verdict, is: o.verdict, right: p?.verdict === o.verdict } };
  if (p?.backend)
    j.backend = { said: p.backend, receiving: o.receiving, right: o.receiving.includes(p.backend) };
  return j;
}
