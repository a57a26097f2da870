import { describe, expect, it } from "vitest";
import { BudgetError, createEngineClient, type WorkerLike } from "./engineClient.ts";
import type { EngineRequest, EngineResponse } from "./protocol.ts";

/** A worker whose answers the test releases one by one, in order. */
function fakeWorker() {
  const inbox: EngineRequest[] = [];
  let generation = 0;
  const w: WorkerLike & {
    inbox: EngineRequest[];
    answer(result?: unknown, ok?: boolean): EngineRequest;
    crash(message?: string): void;
    unreadable(): void;
    terminated: boolean;
  } = {
    terminated: false,
    inbox,
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    postMessage(m) {
      inbox.push(m);
    },
    terminate() {
      w.terminated = true;
    },
    answer(result = "ok", ok = true) {
      const req = inbox.shift()!;
      if (req.method === "analyze") generation = (req.params as { generation: number }).generation;
      const value = result === "ok" ? `${req.method}:${JSON.stringify(req.params)}` : result;
      const res: EngineResponse = ok
        ? {
            id: req.id,
            ok: true,
            // An analysis answers as a message: whole, or a delta (delta.ts) when the test passes one.
            result:
              req.method === "analyze" && !(typeof value === "object" && value && "delta" in value)
                ? { full: value }
                : value,
            generation,
          }
        : { id: req.id, ok: false, error: String(result), generation };
      w.onmessage!({ data: res } as MessageEvent<EngineResponse>);
      return req;
    },
    crash(message) {
      const e = new Event("error");
      if (message) Object.assign(e, { message });
      w.onerror!(e);
    },
    unreadable() {
      w.onmessageerror!(new Event("messageerror"));
    },
  };
  return w;
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("engine client: the newest result wins (astexplorer's stale-answer check)", () => {
  it("keeps one analysis in flight and replaces older waiting texts", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    const b = c.analyze("two", "f");
    const d = c.analyze("three", "f");
    expect(w.inbox.map((r) => r.method)).toEqual(["analyze"]);
    expect(await b).toEqual({ stale: true });
    w.answer();
    expect(await a).toEqual({ stale: true });
    await flush();
    expect(w.inbox).toHaveLength(1);
    const req = w.answer();
    expect((req.params as { text: string }).text).toBe("three");
    expect(await d).toMatchObject({ stale: false, generation: 3 });
  });

  it("answers a single analysis with its result", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    w.answer({ pods: [] });
    expect(await a).toEqual({ stale: false, value: { pods: [] }, generation: 1 });
  });

  it("holds a trace until the newest text is analysed, then asks", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    const t = c.trace({ from: "pod:a/b", to: "pod:a/c:80", protocol: "TCP" });
    expect(w.inbox.map((r) => r.method)).toEqual(["analyze"]);
    w.answer();
    await a;
    await flush();
    expect(w.inbox.map((r) => r.method)).toEqual(["trace"]);
    w.answer("traced");
    expect(await t).toEqual({ stale: false, value: "traced", generation: 1 });
  });

  it("asks for node rules and the connectivity list once the newest text is analysed, with their parameters", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    const r = c.rules({ node: "node-a", mode: "nftables" });
    const l = c.connlist({ format: "json" });
    expect(w.inbox.map((q) => q.method)).toEqual(["analyze"]);
    w.answer();
    await a;
    await flush();
    expect(w.inbox.map((q) => [q.method, q.params])).toEqual([
      ["rules", { node: "node-a", mode: "nftables" }],
      ["connlist", { format: "json" }],
    ]);
    w.answer("rules");
    w.answer("list");
    expect(await r).toEqual({ stale: false, value: "rules", generation: 1 });
    expect(await l).toEqual({ stale: false, value: "list", generation: 1 });
  });

  it("drops a trace answer when the text changed while it ran", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    w.answer();
    await a;
    const t = c.trace({ from: "pod:a/b", to: "pod:a/c:80", protocol: "TCP" });
    await flush();
    void c.analyze("two", "f");
    w.answer("old trace");
    expect(await t).toEqual({ stale: true });
  });

  it("reports an engine error as a rejected promise with the message", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    w.answer("boom", false);
    await expect(a).rejects.toThrow("boom");
  });

  it("rejects everything in flight when the worker dies, and starts a new worker on the next call", async () => {
    const workers: ReturnType<typeof fakeWorker>[] = [];
    const c = createEngineClient(() => {
      const w = fakeWorker();
      workers.push(w);
      return w;
    });
    const a = c.analyze("one", "f");
    workers[0]!.crash();
    await expect(a).rejects.toThrow(/stopped/);
    const b = c.analyze("two", "f");
    expect(workers).toHaveLength(2);
    workers[1]!.answer("fine");
    expect(await b).toMatchObject({ stale: false, value: "fine" });
  });

  it("says why the worker stopped, with the browser's message", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    w.crash("Uncaught RangeError: Array buffer allocation failed");
    await expect(a).rejects.toThrow(
      /stopped unexpectedly \(Uncaught RangeError: Array buffer allocation failed\)/,
    );
    expect(w.terminated).toBe(true);
  });

  it("turns an answer that cannot be read (messageerror) into a message, and restarts on the next call", async () => {
    const workers: ReturnType<typeof fakeWorker>[] = [];
    const c = createEngineClient(() => {
      const w = fakeWorker();
      workers.push(w);
      return w;
    });
    const a = c.analyze("one", "f");
    workers[0]!.unreadable();
    await expect(a).rejects.toThrow(/answer could not be read/);
    void c.analyze("two", "f");
    expect(workers).toHaveLength(2);
  });

  it("supersedes questions still waiting when a newer text is asked: they are stale and never sent", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const a = c.analyze("one", "f");
    const t = c.trace({ from: "pod:a/b", to: "pod:a/c:80", protocol: "TCP" });
    const v = c.validate({});
    void c.analyze("two", "f");
    expect(await t).toEqual({ stale: true });
    expect(await v).toEqual({ stale: true });
    w.answer();
    await a;
    await flush();
    expect(w.inbox.map((r) => r.method)).toEqual(["analyze"]);
  });

  it("sends what-if and diff at once, about their own texts, and answers them even after the text changed", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const op = { kind: "scale", workload: "shop/web", replicas: 0 } as unknown as Parameters<
      typeof c.whatIf
    >[0]["op"];
    const x = c.whatIf({ text: "text", op });
    const d = c.diff({ before: "a", after: "b" });
    expect(w.inbox.map((r) => [r.method, r.params])).toEqual([
      ["whatIf", { text: "text", op }],
      ["diff", { before: "a", after: "b" }],
    ]);
    void c.analyze("newer", "f");
    w.answer({ result: { changed: false } });
    w.answer({ changes: [] });
    expect(await x).toEqual({ result: { changed: false } });
    expect(await d).toEqual({ changes: [] });
  });

  it("stops a request past its time budget, says so, and starts a new worker on the next call", async () => {
    const timers: { f: () => void; ms: number; live: boolean }[] = [];
    const workers: ReturnType<typeof fakeWorker>[] = [];
    const c = createEngineClient(
      () => {
        const w = fakeWorker();
        workers.push(w);
        return w;
      },
      {
        budgetMs: (m) => (m === "analyze" ? 2000 : 500),
        setTimer: (f, ms) => {
          const t = { f, ms, live: true };
          timers.push(t);
          return t;
        },
        clearTimer: (t) => void ((t as { live: boolean }).live = false),
      },
    );
    const a = c.analyze("huge", "f");
    expect(timers.map((t) => t.ms)).toEqual([2000]);
    timers[0]!.f();
    const err = await a.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetError);
    expect((err as Error).message).toMatch(/^The analysis took longer than 2 s and was stopped/);
    expect(workers[0]!.terminated).toBe(true);
    const b = c.analyze("small", "f");
    expect(workers).toHaveLength(2);
    workers[1]!.answer("fine");
    expect(await b).toMatchObject({ stale: false, value: "fine" });
    expect(timers[1]!.live).toBe(false);
  });

  it("asks for a delta against the analysis it holds, and rebuilds the whole analysis from it", async () => {
    const w = fakeWorker();
    const c = createEngineClient(() => w);
    const first = { pods: [{ id: "a" }, { id: "b" }], stats: { millis: 3 } };
    const a = c.analyze("one", "f");
    expect(w.inbox[0]!.params).toEqual({ text: "one", file: "f", generation: 1 });
    w.answer(first);
    const held = await a;
    const b = c.analyze("two", "f");
    expect(w.inbox[0]!.params).toEqual({ text: "two", file: "f", generation: 2, base: 1 });
    w.answer({
      base: 1,
      delta: { o: { pods: { a: [1, { v: { id: "c" } }] }, stats: { v: { millis: 4 } } } },
    });
    const next = await b;
    if (next.stale || held.stale) throw new Error("stale");
    expect(next.value).toEqual({ pods: [{ id: "b" }, { id: "c" }], stats: { millis: 4 } });
    expect(next.value.pods[0]).toBe(held.value.pods[1]);
  });
});

describe("engine client: an analysis's progress", () => {
  it("hands the newest text's steps to its listeners, and never takes them for an answer", async () => {
    const w = fakeWorker();
    const client = createEngineClient(() => w);
    const heard: string[] = [];
    const off = client.onProgress!((p) => heard.push(`${p.step}/${p.steps} ${p.what}`));
    const first = client.analyze("a", "a.yaml");
    const second = client.analyze("b", "b.yaml");
    // The first text is still running in the worker: its steps are not the newest text's.
    w.onmessage!({ data: { progress: { step: 2, steps: 7, what: "old" }, generation: 1 } } as never);
    w.answer();
    await first;
    w.onmessage!({ data: { progress: { step: 3, steps: 7, what: "Grouping" }, generation: 2 } } as never);
    expect(heard).toEqual(["3/7 Grouping"]);
    w.answer();
    expect((await second).stale).toBe(false);
    off();
    w.onmessage!({ data: { progress: { step: 4, steps: 7, what: "after" }, generation: 2 } } as never);
    expect(heard).toEqual(["3/7 Grouping"]);
  });
});
