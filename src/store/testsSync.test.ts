/**
 * The Tests tab end to end below the UI: the store's test file goes through
 * the one engine client to the worker's handlers (run in-process here), and
 * the run follows every new analysis of the manifests and every edit of the
 * test file; the file is kept in this browser's storage.
 */
import { describe, expect, it } from "vitest";
import { defaultScenario } from "../../scenarios/index.ts";
import { createEngineHandlers } from "../worker/handlers.ts";
import { createEngineClient, type WorkerLike } from "../worker/engineClient.ts";
import type { EngineRequest, EngineResponse } from "../worker/protocol.ts";
import { createAppStore, type AppStore } from "./createAppStore.ts";
import { connectEngine } from "./engineSync.ts";
import { persistWork, TESTS_KEY, type StorageLike } from "./persistence.ts";
import { bootstrap } from "./bootstrap.ts";

/** The worker's handlers behind the WorkerLike interface, answering on a later task as a worker does. */
function inProcessWorker(): WorkerLike {
  const engine = createEngineHandlers();
  const w: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage(m: EngineRequest) {
      setTimeout(() => {
        let r: EngineResponse;
        try {
          const handler = engine.handlers[m.method] as (p: typeof m.params) => unknown;
          r = { id: m.id, ok: true, result: handler(m.params), generation: engine.generation };
        } catch (e) {
          r = { id: m.id, ok: false, error: String(e), generation: engine.generation };
        }
        w.onmessage?.({ data: r } as MessageEvent<EngineResponse>);
      }, 0);
    },
    terminate() {},
  };
  return w;
}

const shop = defaultScenario().manifests;
const file = `tests:
  - name: the storefront reaches the backend
    from: shop/frontend
    to: service:shop/backend:80
    expect: allow
  - name: the toolbox reaches the backend
    from: tools/toolbox
    to: service:shop/backend:80
    expect: allow
`;
const fix = `
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: backend-from-tools
  namespace: shop
spec:
  podSelector:
    matchLabels:
      app: backend
  ingress:
    - from:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: tools
`;

async function until(store: AppStore, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
}

function memoryStorage(): StorageLike & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

describe("Tests tab sync", () => {
  it("runs when asked, follows edits of the manifests and of the test file, and stops", async () => {
    const store = createAppStore({ text: shop, scenarioId: undefined, origin: "default" });
    const client = createEngineClient(inProcessWorker);
    const stop = connectEngine(store, client, { debounceMs: () => 0 });
    await until(store, () => store.getState().analysis.status === "ready");
    // Nothing runs before the user presses Run.
    store.getState().setTestsText(file);
    expect(store.getState().testRun.status).toBe("idle");
    store.getState().runTests();
    expect(store.getState().side).toBe("tests");
    await until(store, () => store.getState().testRun.status === "ready");
    expect(store.getState().testRun.result).toMatchObject({ passed: 1, failed: 1 });

    // Selecting the failing expectation asks its pair, so the graph lights its path; the Tests tab stays.
    const failing = store.getState().testRun.result!.results[1]!;
    store.getState().selectTest(1, failing.question);
    expect(store.getState()).toMatchObject({ testSelected: 1, side: "tests", question: failing.question });

    // The manifests change: the tests run again on the new analysis.
    store.getState().editText(shop + fix);
    await until(
      store,
      () =>
        store.getState().testRun.status === "ready" &&
        store.getState().testRun.revision === store.getState().revision,
    );
    expect(store.getState().testRun.result).toMatchObject({ passed: 2, failed: 0 });

    // The test file changes: run again (a moment after typing stops), with its own problems and their lines.
    store.getState().setTestsText(file.replace("expect: allow\n", "expect: alow\n"));
    await until(store, () => store.getState().testRun.text === store.getState().testsText);
    await until(store, () => store.getState().testRun.status === "ready");
    expect(store.getState().testRun.result!.diagnostics[0]).toMatchObject({ severity: "error", line: 5 });

    store.getState().stopTests();
    expect(store.getState().testRun.result).toBeUndefined();
    stop();
    client.dispose();
  });

  it("the test file and whether it is on are kept in this browser, and come back on the next visit", () => {
    const storage = memoryStorage();
    const store = createAppStore({ text: shop, scenarioId: undefined, origin: "default" });
    const p = persistWork(store, storage);
    store.getState().setTestsText(file, "shop-tests.yaml");
    store.getState().runTests();
    expect(JSON.parse(storage.data.get(TESTS_KEY)!)).toEqual({
      text: file,
      file: "shop-tests.yaml",
      on: true,
    });
    p.dispose();
    const next = createAppStore(bootstrap("", storage, "light").initial).getState();
    expect([next.testsText, next.testsFile, next.testsOn]).toEqual([file, "shop-tests.yaml", true]);
    // Damaged storage is ignored, never an exception.
    storage.data.set(TESTS_KEY, "{not json");
    expect(createAppStore(bootstrap("", storage, "light").initial).getState().testsText).toBe("");
  });
});
