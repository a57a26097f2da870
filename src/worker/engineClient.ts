/**
 * The playground's side of the engine worker (astexplorer's pattern): each
 * request gets an id and a promise; a generation counter drops stale answers.
 *
 * - analyze: at most one in flight. A newer text waiting behind it replaces
 *   any older waiting text (those callers get `stale`), and the in-flight
 *   answer is dropped if a newer text was asked for meanwhile: the newest
 *   result wins and the worker never builds a backlog while the user types.
 * - trace, matrix, rules and connlist: wait until the newest text is analysed, and are stale
 *   if the text changes before they answer.
 */
import type {
  Analysis,
  ConnlistDownload,
  DiagnosticView,
  MatrixQuery,
  MatrixView,
  NodeRulesQuery,
  NodeRulesView,
  TraceQuery,
  TraceView,
} from "../engine/analysis/index.ts";
import type { EngineMethod, EngineRequest, EngineResponse } from "./protocol.ts";

export interface WorkerLike {
  postMessage(message: EngineRequest): void;
  onmessage: ((e: MessageEvent<EngineResponse>) => void) | null;
  onerror: ((e: Event) => void) | null;
  terminate(): void;
}

export type Outcome<T> = { stale: false; value: T; generation: number } | { stale: true };

export interface EngineClient {
  analyze(text: string, file: string): Promise<Outcome<Analysis>>;
  validate(): Promise<Outcome<DiagnosticView[]>>;
  trace(q: TraceQuery): Promise<Outcome<TraceView>>;
  matrix(q: MatrixQuery): Promise<Outcome<MatrixView>>;
  rules(q: NodeRulesQuery): Promise<Outcome<NodeRulesView>>;
  connlist(format: ConnlistDownload): Promise<Outcome<string>>;
  /** The newest generation asked for. */
  readonly generation: number;
  dispose(): void;
}

interface Pending {
  resolve(r: EngineResponse): void;
  reject(e: Error): void;
}

interface Waiting {
  text: string;
  file: string;
  generation: number;
  resolve(o: Outcome<Analysis>): void;
  reject(e: Error): void;
}

export class EngineError extends Error {}

export function createEngineClient(makeWorker: () => WorkerLike): EngineClient {
  let worker: WorkerLike | undefined;
  let nextId = 1;
  let generation = 0;
  let analyzed = 0;
  let busy = false;
  let waiting: Waiting | undefined;
  let idle: (() => void)[] = [];
  const pending = new Map<number, Pending>();

  const fail = (message: string) => {
    const err = new EngineError(message);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    worker?.terminate();
    worker = undefined;
    busy = false;
    analyzed = 0;
  };

  const ensureWorker = (): WorkerLike => {
    if (worker) return worker;
    const w = makeWorker();
    w.onmessage = (e) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      p.resolve(e.data);
    };
    w.onerror = (e) => {
      e.preventDefault?.();
      fail("the engine worker stopped unexpectedly");
    };
    worker = w;
    return w;
  };

  const send = (method: EngineMethod, params: EngineRequest["params"]): Promise<EngineResponse> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ensureWorker().postMessage({ id, method, params } as EngineRequest);
    });

  const runIdle = () => {
    const list = idle;
    idle = [];
    for (const f of list) f();
  };

  const start = (job: Waiting) => {
    busy = true;
    send("analyze", { text: job.text, file: job.file, generation: job.generation }).then(
      (r) => {
        busy = false;
        if (r.ok) analyzed = job.generation;
        const next = waiting;
        waiting = undefined;
        if (next) start(next);
        if (job.generation !== generation) job.resolve({ stale: true });
        else if (r.ok) job.resolve({ stale: false, value: r.result as Analysis, generation: job.generation });
        else job.reject(new EngineError(r.error));
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

  const query = <T>(
    method: Exclude<EngineMethod, "analyze">,
    params: EngineRequest["params"],
  ): Promise<Outcome<T>> =>
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
          else if (r.ok) resolve({ stale: false, value: r.result as T, generation: asked });
          else reject(new EngineError(r.error));
        }, reject);
      };
      if (busy || waiting) idle.push(go);
      else go();
    });

  return {
    get generation() {
      return generation;
    },
    analyze(text, file) {
      const g = ++generation;
      return new Promise((resolve, reject) => {
        const job: Waiting = { text, file, generation: g, resolve, reject };
        if (busy) {
          waiting?.resolve({ stale: true });
          waiting = job;
        } else start(job);
      });
    },
    validate: () => query<DiagnosticView[]>("validate", {}),
    trace: (q) => query<TraceView>("trace", q),
    matrix: (q) => query<MatrixView>("matrix", q),
    rules: (q) => query<NodeRulesView>("rules", q),
    connlist: (format) => query<string>("connlist", { format }),
    dispose() {
      fail("the engine was closed");
      waiting?.resolve({ stale: true });
      waiting = undefined;
      idle = [];
    },
  };
}
