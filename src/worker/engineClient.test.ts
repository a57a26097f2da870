import { describe, expect, it } from "vitest";
import { createEngineClient, type WorkerLike } from "./engineClient.ts";
import type { EngineRequest, EngineResponse } from "./protocol.ts";

/** A worker whose answers the test releases one by one, in order. */
function fakeWorker() {
  const inbox: EngineRequest[] = [];
  let generation = 0;
  const w: WorkerLike & {
    inbox: EngineRequest[];
    answer(result?: unknown, ok?: boolean): EngineRequest;
    crash(): void;
  } = {
    inbox,
    onmessage: null,
    onerror: null,
    postMessage(m) {
      inbox.push(m);
    },
    terminate() {},
    answer(result = "ok", ok = true) {
      const req = inbox.shift()!;
      if (req.method === "analyze") generation = (req.params as { generation: number }).generation;
      const res: EngineResponse = ok
        ? {
            id: req.id,
            ok: true,
            result: result === "ok" ? `${req.method}:${JSON.stringify(req.params)}` : result,
            generation,
          }
        : { id: req.id, ok: false, error: String(result), generation };
      w.onmessage!({ data: res } as MessageEvent<EngineResponse>);
      return req;
    },
    crash() {
      w.onerror!(new Event("error"));
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
    const l = c.connlist("json");
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
});
