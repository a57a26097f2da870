import { describe, expect, it } from "vitest";
import { inflateSync, strFromU8 } from "fflate";
import { workerDeflater, type DeflateWorkerLike } from "./deflateClient.ts";
import { deflateAnswer, type DeflateAnswer, type DeflateRequest } from "./deflateAnswer.ts";

/** Workers that answer as deflate.worker.ts does, in this thread, a task later. */
function inThread() {
  const made: { posted: DeflateRequest[] }[] = [];
  const make = (): DeflateWorkerLike => {
    const record = { posted: [] as DeflateRequest[] };
    made.push(record);
    const w: DeflateWorkerLike = {
      onmessage: null,
      onerror: null,
      postMessage(m) {
        record.posted.push(m);
        setTimeout(() => w.onmessage?.({ data: deflateAnswer(m) } as MessageEvent<DeflateAnswer>), 0);
      },
      terminate() {},
    };
    return w;
  };
  return { made, make };
}

describe("the page's deflater for saved texts", () => {
  it("deflates in one worker, started on the first text, and answers each text with its own bytes", async () => {
    const { made, make } = inThread();
    const deflate = workerDeflater(make);
    const texts = ["kind: Pod\n".repeat(50_000), "é → ✕ ".repeat(1000)];
    const out = await Promise.all(texts.map((t) => deflate(t)));
    expect(made).toHaveLength(1);
    expect(made[0]!.posted.map((p) => p.id)).toEqual([1, 2]);
    expect(out.map((b) => strFromU8(inflateSync(b)))).toEqual(texts);
    expect(out[0]!.length).toBeLessThan(texts[0]!.length / 100);
  });

  it("a worker that fails rejects what waits, and the next text starts another", async () => {
    const made: { onerror: ((e: ErrorEvent) => void) | null; terminated: boolean }[] = [];
    const make = () => {
      const w = {
        onmessage: null,
        onerror: null as ((e: ErrorEvent) => void) | null,
        terminated: false,
        postMessage() {},
        terminate() {
          w.terminated = true;
        },
      };
      made.push(w);
      return w;
    };
    const deflate = workerDeflater(make);
    const first = deflate("a");
    made[0]!.onerror!({ message: "failed to load" } as ErrorEvent);
    await expect(first).rejects.toThrow("failed to load");
    expect(made[0]!.terminated).toBe(true);
    void deflate("b");
    expect(made).toHaveLength(2);
  });
});
