/**
 * Predict, then reveal: a lesson opens with its verdicts hidden (neutral
 * edges, no policy labels, veiled panels), the learner predicts each of its
 * questions (the verdict, the HTTP status for a request, and, where there is
 * a choice, which backend receives it), and the reveal shows the engine's
 * trace and says what was right. Pure: the answer judged against is always
 * the engine's trace of that question, never the lesson's own note of it.
 *
 * A prediction belongs to one lesson and one whole question: source,
 * destination, port, protocol, HTTP method, path and headers, and the cluster
 * profile it is asked under. Two questions that differ only by method or by a
 * header's case are two predictions.
 */
import type { Analysis, TraceQuery, TraceView, Verdict } from "../../engine/analysis/index.ts";
import type { CniName } from "../../engine/cni/profile.ts";
import { lessonById, type LessonCheck } from "../../../scenarios/lessons.ts";
import { questionOf } from "./question.ts";

/** An HTTP answer the learner may predict: a status code, or "none" when no HTTP answer comes back (dropped below HTTP). */
export type StatusGuess = number | "none";

export interface Prediction {
  verdict?: Verdict | undefined;
  /** HTTP questions only: the status the client gets. */
  status?: StatusGuess | undefined;
  /** A pod (`pod:NS/NAME`) or, behind an L7 router, a Service (`service:NS/NAME`). */
  backend?: string | undefined;
}

/** What the engine answered for one of the lesson's questions. */
export interface Outcome {
  verdict: Verdict;
  /** The HTTP status the client gets; undefined when no HTTP answer comes back. */
  httpStatus?: number | undefined;
  /** The pods that receive the request (allowed, with a chance above zero), and the Services a router chose. */
  receiving: string[];
}

export interface Judgement {
  verdict: { said?: Verdict | undefined; is: Verdict; right: boolean };
  status?: { said: StatusGuess | undefined; is: StatusGuess; right: boolean };
  backend?: { said: string; receiving: string[]; right: boolean };
  /** Every part that was predicted is right, and the verdict was predicted. */
  right: boolean;
}

export const VERDICT_WORDS: Record<Verdict, string> = {
  allow: "allowed",
  drop: "dropped",
  partial: "partly allowed",
};

/** The statuses offered for an HTTP question: what the routers and L7 policies the engine models answer. */
export const STATUS_CHOICES: readonly StatusGuess[] = [200, 403, 404, 500, 502, 503, "none"];

export function statusWords(s: StatusGuess): string {
  return s === "none" ? "no HTTP answer" : `HTTP ${s}`;
}

/**
 * One question, whole: source, destination (its port included), protocol,
 * the HTTP request (method, path, every header; names as HTTP compares them,
 * values as written) and the cluster profile ("" for the one the input
 * implies). Two questions have the same key only when the engine cannot tell
 * them apart.
 */
export function questionKey(q: TraceQuery, cni?: CniName | undefined): string {
  const http = q.http
    ? `${q.http.method} ${q.http.path}${Object.keys(q.http.headers)
        .sort()
        .map((h) => ` [${h}: ${q.http!.headers[h]}]`)
        .join("")}`
    : "";
  return JSON.stringify([q.from, q.to, q.protocol, http, cni ?? ""]);
}

/** A prediction's (and an outcome's) key: the lesson, then the whole question. */
export function predictionKey(lessonId: string, q: TraceQuery, cni?: CniName | undefined): string {
  return `${lessonId} ${questionKey(q, cni)}`;
}

/** The key of one of a lesson's checks. */
export function checkKey(lessonId: string, c: LessonCheck): string {
  return predictionKey(lessonId, questionOf(c), c.cni);
}

/** Verdicts stay hidden while a lesson is open and its answer is not revealed. */
export function verdictsHidden(s: { scenarioId: string | undefined; answerShown: boolean }): boolean {
  return !s.answerShown && !!s.scenarioId && lessonById(s.scenarioId) !== undefined;
}

/**
 * The backends to choose among for "received by": the pods a Service port
 * sends to (the engine's endpoint flows), or the Services an L7 router's
 * routes send to (its route flows); none when fewer than two.
 */
export function backendOptions(
  analysis: Pick<Analysis, "flows" | "routers"> | undefined,
  to: string,
): string[] {
  if (!analysis) return [];
  const out = new Set<string>();
  if (to.startsWith("service:")) {
    for (const f of analysis.flows) if (f.kind === "endpoint" && f.traceTo === to) out.add(f.to);
  } else if (/^(gateway|ingress):/.test(to)) {
    const routers = new Set(analysis.routers.filter((r) => r.traceTo === to).map((r) => r.id));
    for (const f of analysis.flows)
      if (f.kind === "route" && f.from.some((x) => routers.has(x)) && f.to.startsWith("service:"))
        out.add(f.to);
  }
  return out.size >= 2 ? [...out].sort() : [];
}

export function outcomeOf(t: {
  verdict: TraceView["verdict"];
  httpStatus?: number | undefined;
  endpoints: readonly { pod?: string | undefined; verdict: string; probability: number }[];
  backends?: readonly { service: string; weight: number }[] | undefined;
}): Outcome {
  const o: Outcome = {
    verdict: t.verdict,
    receiving: [
      ...t.endpoints
        .filter((e) => e.pod && e.verdict === "allow" && e.probability > 0)
        .map((e) => `pod:${e.pod}`),
      ...(t.verdict === "drop" ? [] : (t.backends ?? []))
        .filter((b) => b.weight > 0)
        // The view names a Service by its graph id (`service:NS/NAME`), `ktl trace --json` by NS/NAME.
        .map((b) => (b.service.startsWith("service:") ? b.service : `service:${b.service}`)),
    ],
  };
  if (t.httpStatus !== undefined) o.httpStatus = t.httpStatus;
  return o;
}

/**
 * Judges a prediction against the engine's full answer: the verdict always;
 * for an HTTP question the status too (a 403 is not "allowed", and an answer
 * that never reaches HTTP is "no HTTP answer"), so an HTTP prediction without
 * a status is not right; the backend when one was named.
 */
export function judge(p: Prediction | undefined, o: Outcome, http = false): Judgement {
  const j: Judgement = {
    verdict: { said: p?.verdict, is: o.verdict, right: p?.verdict === o.verdict },
    right: false,
  };
  if (http) {
    const is: StatusGuess = o.httpStatus ?? "none";
    j.status = { said: p?.status, is, right: p?.status === is };
  }
  if (p?.backend)
    j.backend = { said: p.backend, receiving: o.receiving, right: o.receiving.includes(p.backend) };
  j.right = !!p?.verdict && j.verdict.right && (j.status?.right ?? true) && (j.backend?.right ?? true);
  return j;
}
