/**
 * The playground's one client of the engine worker (astexplorer's pattern):
 * each request gets an id and a promise; a generation counter drops stale
 * answers. The store's analysis, questions and what-if edits all go
 * through it, to one worker.
 *
 * - analyze: at most one in flight. A newer text waiting behind it replaces
 *   any older waiting text (those callers get `stale`), and the in-flight
 *   answer is dropped if a newer text was asked for meanwhile: the newest
 *   result wins and the worker never builds a backlog while the user types.
 *   The answer is a delta against the analysis this client holds (delta.ts).
 * - trace, matrix, rules, connlist, tests, observe and validate: wait until the newest text
 *   is analysed; a newer text supersedes those still waiting (they are
 *   `stale` without being sent) and those in flight.
 * - whatIf and diff: about the texts they carry, never stale.
 * - Failure is a message, never a hang: a worker that dies (onerror), an
 *   answer that cannot be read (onmessageerror) or a request that runs past
 *   its time budget rejects everything in flight with a sentence the UI
 *   shows; the worker is terminated and a new one starts on the next call.
 */
import type { Analysis, AnalysisProgress } from "../engine/analysis/index.ts";
import { valueOf, type AnalysisMessage } from "./delta.ts";
import {
  ENGINE_METHODS,
  type CallMethod,
  type EngineMethod,
  type EngineMessage,
  type EngineRequest,
  type EngineResponse,
  type ParamsOf,
  type QueryMethod,
  type ResultOf,
} from "./protocol.ts";
import type { ClusterAssumptions, CniName } from "../engine/cni/profile.ts";

export interface WorkerLike {
  postMessage(message: EngineRequest): void;
  onmessage: ((e: MessageEvent<EngineMessage>) => void) | null;
  onerror: ((e: Event) => void) | null;
  onmessageerror?: ((e: Event) => void) | null;
  terminate(): void;
}

export type Outcome<T> = { stale: false; value: T; generation: number } | { stale: true };

/**
 * The client's methods, derived from the worker's (protocol.ts): a query
 * answers for the newest analysed text (or `stale`), a call answers for the
 * texts it carries.
 */
export type EngineClient = {
  /** `cni`: the toolbar's cluster profile; absent, the engine reads it from the input. */
  analyze(text: string, file: string, cni?: CniName, assume?: ClusterAssumptions): Promise<Outcome<Analysis>>;
  /** The newest generation asked for. */
  readonly generation: number;
  /** Hears the steps of the newest text's analysis as they start; returns the way to stop hearing. */
  onProgress?(listener: (p: AnalysisProgress) => void): () => void;
  dispose(): void;
} & { [M in QueryMethod]: (params: ParamsOf<M>) => Promise<Outcome<ResultOf<M>>> } & {
  [M in CallMethod]: (params: ParamsOf<M>) => Promise<ResultOf<M>>;
};

export interface EngineClientOptions {
  /** Longest a request may run, in milliseconds, before the worker is stopped (per method). */
  budgetMs?: (method: EngineMethod) => number;
  setTimer?: (f: () => void, ms: number) => unknown;
  clearTimer?: (h: unknown) => void;
}

/** An analysis at L takes seconds on a slow machine; one that runs a minute is a runaway input. */
export const DEFAULT_BUDGET_MS = 60_000;

export class EngineError extends Error {}
/** A request stopped by its time budget. */
export class BudgetError extends EngineError {}

interface Pending {
  method: EngineMethod;
  timer: unknown;
  resolve(r: EngineResponse): void;
  reject(e: Error): void;
}

interface Waiting {
  text: string;
  file: string;
  cni?: CniName;
  assume?: ClusterAssumptions;
  generation: number;
  resolve(o: Outcome<Analysis>): void;
  reject(e: Error): void;
}

interface Query {
  go(): void;
  supersede(): void;
}

/**
 * The worker behind a client: started on first use; each request has its time budget. A crash, an
 * unreadable answer or an overrun ends every pending request and the worker (the next request starts
 * a new one), and tells the client to forget what it held.
 */
function workerChannel(
  makeWorker: () => WorkerLike,
  options: EngineClientOptions,
  on: { progress: (generation: number, p: AnalysisProgress) => void; reset: () => void },
) {
  const budgetOf = options.budgetMs ?? (() => DEFAULT_BUDGET_MS);
  const setTimer = options.setTimer ?? ((f, ms) => setTimeout(f, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let worker: WorkerLike | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const fail = (err: EngineError) => {
    const list = [...pending.values()];
    pending.clear();
    for (const p of list) {
      clearTimer(p.timer);
      p.reject(err);
    }
    worker?.terminate();
    worker = undefined;
    on.reset();
  };

  const ensureWorker = (): WorkerLike => {
    if (worker) return worker;
    const w = makeWorker();
    w.onmessage = (e) => {
      if (w !== worker) return;
      if ("progress" in e.data) {
        on.progress(e.data.generation, e.data.progress);
        return;
      }
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      clearTimer(p.timer);
      p.resolve(e.data);
    };
    w.onerror = (e) => {
      e.preventDefault?.();
      if (w !== worker) return;
      const detail = (e as ErrorEvent).message;
      fail(
        new EngineError(
          `the engine worker stopped unexpectedly${detail ? ` (${detail})` : ""}; it restarts with your next edit`,
        ),
      );
    };
    w.onmessageerror = () => {
      if (w === worker)
        fail(new EngineError("the engine's answer could not be read; it restarts with your next edit"));
    };
    worker = w;
    return w;
  };

  const send = (method: EngineMethod, params: EngineRequest["params"]): Promise<EngineResponse> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const ms = budgetOf(method);
      const timer = setTimer(() => {
        if (!pending.has(id)) return;
        fail(
          new BudgetError(
            `${ENGINE_METHODS[method].what} took longer than ${Math.round(ms / 1000)} s and was stopped: this input is too costly for the browser (try \`ktl\` on the command line, or a smaller part of it)`,
          ),
        );
      }, ms);
      pending.set(id, { method, timer, resolve, reject });
      ensureWorker().postMessage({ id, method, params } as EngineRequest);
    });
  return { send, fail };
}

export function createEngineClient(
  makeWorker: () => WorkerLike,
  options: EngineClientOptions = {},
): EngineClient {
  let generation = 0;
  let analyzed = 0;
  let busy = false;
  let waiting: Waiting | undefined;
  let idle: Query[] = [];
  /** The analysis this client holds, the base of the worker's deltas. */
  let held: { generation: number; value: Analysis } | undefined;
  const progressListeners = new Set<(p: AnalysisProgress) => void>();

  const { send, fail } = workerChannel(makeWorker, options, {
    progress: (g, p) => {
      // Only the newest text's steps: an older one still running will be stale when it answers.
      if (g === generation) for (const l of progressListeners) l(p);
    },
    reset: () => {
      busy = false;
      analyzed = 0;
      held = undefined;
    },
  });

  const runIdle = () => {
    const list = idle;
    idle = [];
    for (const q of list) q.go();
  };

  const start = (job: Waiting) => {
    busy = true;
    const base = held?.generation;
    send("analyze", {
      text: job.text,
      file: job.file,
      generation: job.generation,
      ...(base !== undefined ? { base } : {}),
      ...(job.cni ? { cni: job.cni } : {}),
      ...(job.assume ? { assume: job.assume } : {}),
    }).then(
      (r) => {
        busy = false;
        let value: Analysis | undefined;
        let error = r.ok ? undefined : r.error;
        if (r.ok) {
          try {
            value = valueOf(r.result as AnalysisMessage<Analysis>, held);
            held = { generation: job.generation, value };
            analyzed = job.generation;
          } catch (e) {
            // The worker and this page disagree on the base: start over with a whole analysis.
            held = undefined;
            error = e instanceof Error ? e.message : String(e);
          }
        }
        const next = waiting;
        waiting = undefined;
        if (next) start(next);
        if (job.generation !== generation) job.resolve({ stale: true });
        else if (value) job.resolve({ stale: false, value, generation: job.generation });
        else job.reject(new EngineError(error));
        if (!busy) runIdle();
      },
      (e: Error) => {
        busy = false;
        job.reject(e);
        const next = waiting;
        waiting = undefined;
        if (next) start(next);
        else runIdle();
      },
    );
  };

  const query = <M extends QueryMethod>(method: M, params: ParamsOf<M>): Promise<Outcome<ResultOf<M>>> =>
    new Promise((resolve, reject) => {
      const go = () => {
        const asked = generation;
        if (analyzed !== asked) {
          // The newest text failed to analyse: there is no model to ask.
          reject(new EngineError("the scenario could not be analysed"));
          return;
        }
        send(method, params).then((r) => {
          if (generation !== asked || r.generation !== asked) resolve({ stale: true });
          else if (r.ok) resolve({ stale: false, value: r.result as ResultOf<M>, generation: asked });
          else reject(new EngineError(r.error));
        }, reject);
      };
      if (busy || waiting) idle.push({ go, supersede: () => resolve({ stale: true }) });
      else go();
    });

  const call = async <M extends CallMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> => {
    const r = await send(method, params);
    if (!r.ok) throw new EngineError(r.error);
    return r.result as ResultOf<M>;
  };

  // One client method per worker method, by its kind (protocol.ts ENGINE_METHODS).
  const methods = {} as Record<string, (params: never) => Promise<unknown>>;
  for (const [m, spec] of Object.entries(ENGINE_METHODS) as [EngineMethod, { kind: string }][]) {
    if (spec.kind === "query") methods[m] = (params) => query(m as QueryMethod, params);
    else if (spec.kind === "call") methods[m] = (params) => call(m as CallMethod, params);
  }

  return {
    ...(methods as unknown as Pick<EngineClient, QueryMethod | CallMethod>),
    get generation() {
      return generation;
    },
    onProgress(listener) {
      progressListeners.add(listener);
      return () => progressListeners.delete(listener);
    },
    analyze(text, file, cni, assume) {
      const g = ++generation;
      // Questions about an older text that were still waiting are superseded: never sent.
      const superseded = idle;
      idle = [];
      for (const q of superseded) q.supersede();
      return new Promise((resolve, reject) => {
        const job: Waiting = { text, file, generation: g, resolve, reject };
        if (cni) job.cni = cni;
        if (assume) job.assume = assume;
        if (busy) {
          waiting?.resolve({ stale: true });
          waiting = job;
        } else start(job);
      });
    },
    dispose() {
      fail(new EngineError("the engine was closed"));
      waiting?.resolve({ stale: true });
      waiting = undefined;
      for (const q of idle) q.supersede();
      idle = [];
    },
  };
}
