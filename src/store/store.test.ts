import { describe, expect, it } from "vitest";
import { deflateSync, strToU8 } from "fflate";
import { createAppStore } from "./createAppStore.ts";
import {
  persistWork,
  loadWork,
  saveWork,
  COMPRESS_ABOVE,
  WORK_KEY,
  type StorageLike,
} from "./persistence.ts";
import { bootstrap } from "./bootstrap.ts";
import { connectEngine } from "./engineSync.ts";
import { encodeShare, hashFor } from "../share/codec.ts";
import { DEFAULT_SCENARIO_ID } from "../../scenarios/index.ts";
import type { EngineClient, Outcome } from "../worker/engineClient.ts";
import type { Analysis, MatrixView, NodeRulesView, TraceView } from "../engine/analysis/index.ts";

const fresh = (text = "kind: Pod") => createAppStore({ text, scenarioId: undefined, origin: "default" });

function memoryStorage(): StorageLike & { data: Map<string, string>; failing: boolean } {
  const data = new Map<string, string>();
  return {
    data,
    failing: false,
    getItem: (k) => data.get(k) ?? null,
    setItem(k, v) {
      if (this.failing) throw new Error("QuotaExceededError");
      data.set(k, v);
    },
    removeItem: (k) => void data.delete(k),
  };
}

/** Timers the test runs by hand. */
function manualTimers() {
  let next = 1;
  const timers = new Map<number, { f: () => void; ms: number }>();
  return {
    schedule: (f: () => void, ms: number) => {
      timers.set(next, { f, ms });
      return next++;
    },
    cancel: (h: unknown) => void timers.delete(h as number),
    pending: () => [...timers.values()],
    runAll() {
      const list = [...timers.values()];
      timers.clear();
      for (const t of list) t.f();
    },
  };
}

describe("input slice", () => {
  it.each([
    ["a new text bumps the revision and marks it an edit", "changed", 1, "edit"],
    ["the same text changes nothing", "kind: Pod", 0, "default"],
  ] as const)("%s", (_, text, revision, origin) => {
    const s = fresh();
    s.getState().editText(text);
    expect(s.getState()).toMatchObject({ revision, origin, text });
  });

  it("an edit made for the user (a what-if) is marked so the editor takes it in, and keeps the question", () => {
    const s = fresh();
    const q = { from: "pod:a/b", to: "pod:a/c:80", protocol: "TCP" } as const;
    s.getState().ask(q);
    s.getState().editText("labelled", "whatif");
    expect(s.getState()).toMatchObject({ text: "labelled", origin: "whatif", revision: 1, question: q });
  });

  it("replacing the text (scenario, link) clears the selection and the question", () => {
    const s = fresh();
    s.getState().ask({ from: "pod:a/b", to: "pod:a/c:80", protocol: "TCP" });
    s.getState().replaceText("other", "scenario", "x");
    expect(s.getState()).toMatchObject({
      text: "other",
      origin: "scenario",
      scenarioId: "x",
      selection: undefined,
      question: undefined,
      revision: 1,
    });
  });
});

describe("analysis slice", () => {
  it("a failure keeps the last good result on screen", () => {
    const s = fresh();
    const result = { pods: [], ports: [] } as unknown as Analysis;
    s.getState().analysisReceived(0, result);
    s.getState().analysisFailed(1, "boom");
    expect(s.getState().analysis).toEqual({ status: "error", revision: 1, result, error: "boom" });
  });
});

describe("view slice", () => {
  it("the matrix follows the scenario's most common port until the user picks one", () => {
    const s = fresh();
    const withPort = (port: number) => ({ ports: [{ port, protocol: "TCP" }] }) as unknown as Analysis;
    s.getState().analysisReceived(0, withPort(8080));
    expect(s.getState().matrixQuery.port).toBe(8080);
    s.getState().setMatrixQuery({ port: 53, protocol: "UDP" });
    s.getState().analysisReceived(1, withPort(9090));
    expect(s.getState().matrixQuery).toMatchObject({ port: 53, protocol: "UDP" });
  });

  it("toggles namespaces in and out of the hidden list, sorted", () => {
    const s = fresh();
    s.getState().toggleNamespace("b");
    s.getState().toggleNamespace("a");
    expect(s.getState().filters.hiddenNamespaces).toEqual(["a", "b"]);
    s.getState().toggleNamespace("b");
    expect(s.getState().filters.hiddenNamespaces).toEqual(["a"]);
  });

  it("asking a question selects it and opens the details", () => {
    const s = fresh();
    s.getState().setSide("problems");
    s.getState().ask({ from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" });
    expect(s.getState()).toMatchObject({
      selection: { kind: "question" },
      side: "details",
      question: { to: "service:a/c:80" },
    });
  });

  it("asking the same question again keeps its object (the answer on its way still counts)", () => {
    const s = fresh();
    s.getState().ask({ from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" });
    const first = s.getState().question;
    s.getState().ask({ from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" }, { kind: "edge", id: "e1" });
    expect(s.getState().question).toBe(first);
    expect(s.getState().selection).toEqual({ kind: "edge", id: "e1" });
  });

  it("revealing the same line twice moves the editor twice (new nonce)", () => {
    const s = fresh();
    s.getState().revealLine(12);
    const first = s.getState().reveal!.nonce;
    s.getState().revealLine(12);
    expect(s.getState().reveal).toEqual({ line: 12, nonce: first + 1 });
  });

  it("every test gets its own store", () => {
    const a = fresh();
    const b = fresh();
    a.getState().setTheme("dark");
    expect(b.getState().theme).toBe("light");
  });
});

describe("persistence: a reload never loses work", () => {
  it("saves the text after a quiet moment, and at once on flush", () => {
    const storage = memoryStorage();
    const timers = manualTimers();
    const s = fresh();
    const p = persistWork(s, storage, timers);
    s.getState().editText("one");
    s.getState().editText("two");
    expect(timers.pending()).toHaveLength(1);
    expect(storage.data.has(WORK_KEY)).toBe(false);
    timers.runAll();
    expect(loadWork(storage)).toEqual({ text: "two" });
    s.getState().editText("three");
    p.flush();
    expect(loadWork(storage)).toEqual({ text: "three" });
    p.dispose();
  });

  it("stores a large text deflated and reads it back exactly", () => {
    const storage = memoryStorage();
    const big = Array.from(
      { length: 30000 },
      (_, i) => `- name: pod-${i}\n  labels: {app: web, tier: "${i % 7}"}\n`,
    ).join("");
    expect(big.length).toBeGreaterThan(COMPRESS_ABOVE);
    expect(saveWork(storage, { text: big, scenarioId: "x" })).toBeUndefined();
    const raw = storage.data.get(WORK_KEY)!;
    expect(raw.length).toBeLessThan(big.length / 5);
    expect(loadWork(storage)).toEqual({ text: big, scenarioId: "x" });
  });

  it("deflates a large text with the deflater given, and a save finishing after a newer one writes nothing", async () => {
    const storage = memoryStorage();
    const timers = manualTimers();
    const s = fresh();
    const asked: { text: string; done: (b: Uint8Array) => void }[] = [];
    const deflate = (text: string) => new Promise<Uint8Array>((done) => asked.push({ text, done }));
    persistWork(s, storage, { ...timers, deflate });
    const big = (n: number) => `# ${n}\n` + "- name: pod\n".repeat(COMPRESS_ABOVE / 10);
    s.getState().editText(big(1));
    timers.runAll();
    s.getState().editText(big(2));
    timers.runAll();
    expect(asked.map((a) => a.text.slice(0, 4))).toEqual(["# 1\n", "# 2\n"]);
    asked[1]!.done(deflateSync(strToU8(asked[1]!.text)));
    await Promise.resolve();
    await Promise.resolve();
    expect(loadWork(storage)?.text).toBe(big(2));
    asked[0]!.done(deflateSync(strToU8(asked[0]!.text)));
    await Promise.resolve();
    await Promise.resolve();
    expect(loadWork(storage)?.text).toBe(big(2));
  });

  it("a large text whose deflater fails is saved on this thread instead", async () => {
    const storage = memoryStorage();
    const timers = manualTimers();
    const s = fresh();
    persistWork(s, storage, { ...timers, deflate: () => Promise.reject(new Error("worker blocked")) });
    const big = "- name: pod\n".repeat(COMPRESS_ABOVE / 10);
    s.getState().editText(big);
    timers.runAll();
    await Promise.resolve();
    await Promise.resolve();
    expect(loadWork(storage)?.text).toBe(big);
    expect(s.getState().notice).toBeUndefined();
  });

  it("tells the user once when the browser refuses to store", () => {
    const storage = memoryStorage();
    storage.failing = true;
    const timers = manualTimers();
    const s = fresh();
    persistWork(s, storage, timers);
    s.getState().editText("one");
    timers.runAll();
    expect(s.getState().notice?.kind).toBe("error");
    expect(s.getState().notice?.text).toMatch(/not saved/);
  });
});

describe("bootstrap: link, else saved work, else the default scenario", () => {
  const link = (text: string) => {
    const e = encodeShare({ text });
    if (!e.ok) throw new Error(e.error);
    return hashFor(e.payload);
  };
  const withSaved = (text: string) => {
    const st = memoryStorage();
    st.setItem(WORK_KEY, JSON.stringify({ text }));
    return st;
  };
  it.each([
    [
      "first visit: the default scenario",
      "",
      memoryStorage(),
      { origin: "default", scenarioId: DEFAULT_SCENARIO_ID },
      undefined,
    ],
    ["saved work", "", withSaved("mine"), { origin: "storage", text: "mine" }, undefined],
    [
      "a link wins over saved work, with an undo",
      link("shared"),
      withSaved("mine"),
      { origin: "share", text: "shared" },
      "mine",
    ],
    [
      "a damaged link keeps the saved work and says so",
      "#share=%%%",
      withSaved("mine"),
      { origin: "storage", text: "mine" },
      undefined,
    ],
  ] as const)("%s", (_, hash, storage, expected, undoText) => {
    const b = bootstrap(hash, storage, "light");
    expect(b.initial).toMatchObject(expected);
    expect(b.notice?.undoText).toBe(undoText);
  });

  it("a link with a before-state opens its text and hands the before-state on, to be compared (a pull request's base)", () => {
    const e = encodeShare({ text: "after", before: "before" });
    if (!e.ok) throw new Error(e.error);
    const b = bootstrap(hashFor(e.payload), withSaved("mine"), "light");
    expect(b.initial.text).toBe("after");
    expect(b.before).toBe("before");
    const plain = encodeShare({ text: "after" });
    if (!plain.ok) throw new Error(plain.error);
    expect(bootstrap(hashFor(plain.payload), undefined, "light").before).toBeUndefined();
  });

  it("a damaged link gives an error notice", () => {
    const b = bootstrap("#share=AT+/", withSaved("mine"), "dark");
    expect(b.notice).toMatchObject({ kind: "error" });
    expect(b.notice!.text).toMatch(/damaged.*Your own text is open/);
    expect(b.consumedHash).toBe(true);
  });
});

describe("the view (question, filters, tabs, lesson step) survives a reload and travels in a link", () => {
  const q = { from: "pod:shop/a", to: "service:shop/b:80", protocol: "TCP" as const };
  it("persistWork saves the view apart from the text, and bootstrap restores it with the saved work", () => {
    const storage = memoryStorage();
    const store = fresh("mine");
    const p = persistWork(store, storage, { schedule: (f) => f(), cancel: () => {} });
    store.getState().editText("mine, edited");
    store.getState().ask(q);
    store.getState().setFilters({ onlyDrops: true });
    store.getState().setTab("matrix");
    store.getState().setSide("problems");
    store.getState().showAnswer(true);
    p.dispose();
    const b = bootstrap("", storage, "light");
    expect(b.initial.view).toMatchObject({
      question: q,
      tab: "matrix",
      side: "problems",
      filters: { onlyDrops: true },
      lesson: { revealed: true },
    });
    const again = createAppStore(b.initial).getState();
    expect([again.question, again.tab, again.side, again.filters.onlyDrops, again.answerShown]).toEqual([
      q,
      "matrix",
      "problems",
      true,
      true,
    ]);
  });

  it("a link's view wins over the saved one; the theme is never in it", () => {
    const storage = memoryStorage();
    storage.setItem(WORK_KEY, JSON.stringify({ text: "mine" }));
    storage.setItem("ktl.view.v1", JSON.stringify({ tab: "rules" }));
    const e = encodeShare({ text: "shared", view: { tab: "matrix", question: q } });
    if (!e.ok) throw new Error(e.error);
    const b = bootstrap(hashFor(e.payload), storage, "dark");
    expect(b.initial.view).toEqual({ tab: "matrix", question: q });
    const s = createAppStore(b.initial).getState();
    expect([s.tab, s.question, s.theme]).toEqual(["matrix", q, "dark"]);
  });
});

describe("engine sync", () => {
  function fakeClient() {
    const calls: string[] = [];
    const resolvers: ((o: Outcome<Analysis>) => void)[] = [];
    const client: EngineClient = {
      generation: 0,
      analyze(text, _file, cni) {
        calls.push(`analyze:${text}${cni ? `@${cni}` : ""}`);
        return new Promise((r) => resolvers.push(r));
      },
      validate() {
        calls.push("validate");
        return Promise.resolve({
          stale: false,
          value: [{ code: "KTL600", severity: "warning", message: "lint", line: 1, column: 1 }],
          generation: 1,
        });
      },
      trace(q) {
        calls.push(`trace:${q.from}->${q.to}`);
        return Promise.resolve({ stale: false, value: { verdict: "drop" } as TraceView, generation: 1 });
      },
      matrix(q) {
        calls.push(`matrix:${q.port}`);
        return Promise.resolve({ stale: false, value: { port: q.port } as MatrixView, generation: 1 });
      },
      rules(q) {
        calls.push(`rules:${q.mode}:${q.node ?? "-"}:${q.trace ? `${q.trace.from}->${q.trace.to}` : "-"}`);
        return Promise.resolve({
          stale: false,
          value: { node: q.node ?? "n1", mode: q.mode } as NodeRulesView,
          generation: 1,
        });
      },
      connlist({ format }) {
        calls.push(`connlist:${format}`);
        return Promise.resolve({ stale: false, value: `list as ${format}`, generation: 1 });
      },
      tests: () => Promise.reject(new Error("no tests here")),
      observe(q) {
        calls.push(`observe:${q.file}`);
        return Promise.resolve({ stale: false, value: { file: q.file, errors: [] }, generation: 1 });
      },
      whatIf: () => Promise.reject(new Error("no what-if here")),
      edgeEdit: () => Promise.reject(new Error("no edge edit here")),
      suggest: () => Promise.reject(new Error("no suggestion here")),
      diff: () => Promise.reject(new Error("no diff here")),
      dispose() {},
    };
    return { client, calls, resolvers };
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it("analyses at once, then once per quiet moment, and writes only fresh answers", async () => {
    const { client, calls, resolvers } = fakeClient();
    const timers = manualTimers();
    const s = fresh("a");
    connectEngine(s, client, timers);
    expect(calls).toEqual(["analyze:a"]);
    s.getState().editText("ab");
    s.getState().editText("abc");
    timers.runAll();
    expect(calls).toEqual(["analyze:a", "analyze:abc"]);
    resolvers[0]!({ stale: true });
    resolvers[1]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 2 });
    await tick();
    expect(s.getState().analysis).toMatchObject({ status: "ready", revision: 2 });
    await tick();
    expect(s.getState().validation).toMatchObject({ revision: 2, diagnostics: [{ code: "KTL600" }] });
  });

  /** The sync's own tasks (its nextTask), run one at a time by the test. */
  function manualTasks() {
    const queue: (() => void)[] = [];
    return {
      nextTask: (f: () => void) => void queue.push(f),
      runOne: () => queue.shift()?.(),
      runAll: () => {
        while (queue.length) queue.shift()!();
      },
      size: () => queue.length,
    };
  }
  const answered = async () => {
    await Promise.resolve();
    await Promise.resolve();
  };

  it("maps a large answer a slice per task, shows it in a task after the last, and a newer answer wins", async () => {
    const { client, calls, resolvers } = fakeClient();
    const timers = manualTimers();
    const tasks = manualTasks();
    const s = fresh("a");
    const log: string[] = [];
    const large = (n: number) => ({ pods: new Array(n).fill({}), ports: [] }) as unknown as Analysis;
    connectEngine(s, client, {
      ...timers,
      nextTask: tasks.nextTask,
      // A slice per pod: an answer of n pods takes n slices.
      prepareDraw: (r) => {
        if (r.pods.length <= 1) return undefined;
        let left = r.pods.length;
        return {
          step: () => {
            log.push(`slice of ${r.pods.length}, shown ${s.getState().analysis.revision}`);
            return --left === 0;
          },
        };
      },
    });
    /** The worker's answer `i` (an edit's, after `text`), of `pods` pods. */
    const answer = async (text: string | undefined, i: number, pods: number) => {
      if (text !== undefined) {
        s.getState().editText(text);
        timers.runAll();
      }
      resolvers[i]!({ stale: false, value: large(pods), generation: i + 1 });
      await answered();
    };
    await answer(undefined, 0, 3);
    // Received, not shown: no slice runs outside a task of its own.
    expect(s.getState().analysis.status).not.toBe("ready");
    expect(log).toEqual([]);
    tasks.runOne();
    tasks.runOne();
    expect(log).toEqual(["slice of 3, shown -1", "slice of 3, shown -1"]);
    tasks.runOne();
    // The work has ended; the answer is shown in the next task, and validation asked for the answer shown.
    expect(log).toHaveLength(3);
    expect(s.getState().analysis.status).not.toBe("ready");
    expect(calls).toEqual(["analyze:a"]);
    tasks.runOne();
    expect(s.getState().analysis).toMatchObject({ status: "ready", revision: 0 });
    expect(calls).toEqual(["analyze:a", "validate"]);
    expect(tasks.size()).toBe(0);

    // A newer large answer arrives while one is being mapped: the older stops, the newer is mapped and shown.
    await answer("ab", 1, 4);
    tasks.runOne();
    await answer("abc", 2, 2);
    tasks.runAll();
    expect(log.slice(3)).toEqual(["slice of 4, shown 0", "slice of 2, shown 0", "slice of 2, shown 0"]);
    expect(s.getState().analysis).toMatchObject({ revision: 2 });
    expect(s.getState().analysis.result!.pods).toHaveLength(2);

    // A small answer is shown at once, and the large one being mapped before it is never shown.
    await answer("abcd", 3, 5);
    tasks.runOne();
    await answer("abcde", 4, 1);
    expect(s.getState().analysis).toMatchObject({ revision: 4 });
    tasks.runAll();
    expect(log.slice(6)).toEqual(["slice of 5, shown 2"]);
    expect(s.getState().analysis).toMatchObject({ revision: 4 });
    expect(s.getState().analysis.result!.pods).toHaveLength(1);
  });

  it("a large answer waiting for its task is not shown over a newer answer's failure", async () => {
    const { client } = fakeClient();
    const pending: { resolve: (o: Outcome<Analysis>) => void; reject: (e: Error) => void }[] = [];
    client.analyze = () => new Promise((resolve, reject) => pending.push({ resolve, reject }));
    const timers = manualTimers();
    const s = fresh("a");
    const large = { pods: new Array(3).fill({}), ports: [] } as unknown as Analysis;
    connectEngine(s, client, { ...timers, prepareDraw: () => ({ step: () => true }) });
    s.getState().editText("ab");
    timers.runAll();
    pending[1]!.resolve({ stale: false, value: large, generation: 2 });
    pending[0]!.resolve({ stale: true });
    await Promise.resolve();
    s.getState().editText("abc");
    timers.runAll();
    pending[2]!.reject(new Error("out of memory"));
    await tick();
    expect(s.getState().analysis).toMatchObject({ status: "error", revision: 2 });
  });

  it("sends a small text's edit when the task that made it ends, before any timer, and each burst once", async () => {
    const { client, calls } = fakeClient();
    const s = fresh("a");
    connectEngine(s, client);
    const timerRan: string[] = [];
    setTimeout(() => timerRan.push(`timer saw ${calls.length} calls`), 0);
    s.getState().editText("ab");
    s.getState().editText("abc");
    expect(calls).toEqual(["analyze:a"]);
    await Promise.resolve();
    expect(calls).toEqual(["analyze:a", "analyze:abc"]);
    expect(timerRan).toEqual([]);
    await tick();
    expect(timerRan).toEqual(["timer saw 2 calls"]);
  });

  it("a text over 200 kB is sent when the task that gave it ends: the editor's own pause joined its keys", async () => {
    const { client, calls } = fakeClient();
    const s = fresh("a");
    connectEngine(s, client);
    s.getState().editText("x".repeat(200_001));
    // Not within the store's update (one change made of several sets is sent once), but without a timer.
    expect(calls).toHaveLength(1);
    await Promise.resolve();
    expect(calls).toHaveLength(2);
  });

  it("analyses again under the cluster profile chosen in the toolbar, and back to the input's own", () => {
    const { client, calls } = fakeClient();
    const timers = manualTimers();
    const s = fresh("a");
    connectEngine(s, client, timers);
    s.getState().setCni("calico");
    timers.runAll();
    s.getState().setCni(undefined);
    timers.runAll();
    expect(calls).toEqual(["analyze:a", "analyze:a@calico", "analyze:a"]);
  });

  it("an HTTP request makes another question: the engine is asked again", async () => {
    const { client, calls, resolvers } = fakeClient();
    const s = fresh("a");
    connectEngine(s, client, manualTimers());
    resolvers[0]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 1 });
    await tick();
    const q = { from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" as const };
    s.getState().ask(q);
    s.getState().ask({ ...q, http: { method: "GET", path: "/admin", headers: {} } });
    s.getState().ask({ ...q, http: { method: "GET", path: "/admin", headers: {} } });
    await tick();
    expect(calls.filter((c) => c.startsWith("trace:"))).toHaveLength(2);
  });

  it("traces the question against each new analysis", async () => {
    const { client, calls, resolvers } = fakeClient();
    const s = fresh("a");
    connectEngine(s, client, manualTimers());
    s.getState().ask({ from: "pod:a/b", to: "pod:a/c:80", protocol: "TCP" });
    expect(calls).toEqual(["analyze:a"]);
    resolvers[0]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 1 });
    await tick();
    await tick();
    expect(calls).toEqual(["analyze:a", "trace:pod:a/b->pod:a/c:80", "validate"]);
    expect(s.getState().trace).toMatchObject({ status: "ready", result: { verdict: "drop" } });
  });

  it("compares an opened flow file with each new analysis, and stops when it is closed", async () => {
    const { client, calls, resolvers } = fakeClient();
    const timers = manualTimers();
    const s = fresh("a");
    connectEngine(s, client, timers);
    s.getState().openFlows('{"verdict":"FORWARDED"}', "flows.jsonl");
    expect(s.getState().side).toBe("observed");
    expect(calls.filter((c) => c.startsWith("observe"))).toEqual([]);
    resolvers[0]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 1 });
    await tick();
    expect(calls.filter((c) => c.startsWith("observe"))).toEqual(["observe:flows.jsonl"]);
    await tick();
    expect(s.getState().observeRun).toMatchObject({
      status: "ready",
      revision: s.getState().analysis.revision,
      result: { file: "flows.jsonl" },
    });
    s.getState().closeFlows();
    s.getState().editText("ab");
    timers.runAll();
    resolvers[1]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 2 });
    await tick();
    expect(calls.filter((c) => c.startsWith("observe"))).toHaveLength(1);
    expect(s.getState().observeRun.status).toBe("idle");
  });

  it("computes the matrix only while the matrix tab is open", async () => {
    const { client, calls, resolvers } = fakeClient();
    const s = fresh("a");
    connectEngine(s, client, manualTimers());
    resolvers[0]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 1 });
    await tick();
    expect(calls.filter((c) => c.startsWith("matrix"))).toEqual([]);
    s.getState().setTab("matrix");
    s.getState().setMatrixQuery({ port: 8080 });
    await tick();
    expect(calls.filter((c) => c.startsWith("matrix"))).toEqual(["matrix:80", "matrix:8080"]);
    expect(s.getState().matrix.result).toEqual({ port: 8080 });
  });

  it("computes node rules only while their tab is open, for the picked node, then for each new question's own node", async () => {
    const { client, calls, resolvers } = fakeClient();
    const s = fresh("a");
    connectEngine(s, client, manualTimers());
    resolvers[0]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 1 });
    await tick();
    s.getState().select({ kind: "node", id: "node:node-b" });
    expect(s.getState().rulesNode).toBe("node-b");
    expect(calls.filter((c) => c.startsWith("rules"))).toEqual([]);
    s.getState().setTab("rules");
    s.getState().setRulesMode("nftables");
    await tick();
    s.getState().ask({ from: "pod:a/b", to: "service:a/s:80", protocol: "TCP" });
    await tick();
    expect(calls.filter((c) => c.startsWith("rules"))).toEqual([
      "rules:iptables:node-b:-",
      "rules:nftables:node-b:-",
      "rules:nftables:-:pod:a/b->service:a/s:80",
    ]);
    expect(s.getState().rules).toMatchObject({ status: "ready", result: { mode: "nftables", node: "n1" } });
    s.getState().setTab("graph");
    s.getState().setRulesMode("ipvs");
    await tick();
    expect(calls.filter((c) => c.startsWith("rules"))).toHaveLength(3);
  });

  it("a rule's hop link opens the details and counts each click", () => {
    const s = fresh("a");
    s.getState().setSide("problems");
    s.getState().focusHop(2);
    s.getState().focusHop(2);
    expect(s.getState()).toMatchObject({ side: "details", hopFocus: { index: 2, nonce: 2 } });
    s.getState().ask({ from: "pod:a/b", to: "service:a/s:80", protocol: "TCP" });
    expect(s.getState().hopFocus).toBeUndefined();
  });

  it("asks for the connectivity list once per download, not again for each new analysis", async () => {
    const { client, calls, resolvers } = fakeClient();
    const timers = manualTimers();
    const s = fresh("a");
    connectEngine(s, client, timers);
    const q = s.getState().requestConnlist("txt");
    expect(calls).toEqual(["analyze:a"]);
    resolvers[0]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 1 });
    await tick();
    expect(s.getState().connlist).toMatchObject({ status: "ready", query: q, result: "list as txt" });
    s.getState().requestConnlist("json");
    await tick();
    expect(calls.filter((c) => c.startsWith("connlist"))).toEqual(["connlist:txt", "connlist:json"]);
    s.getState().editText("b");
    timers.runAll();
    resolvers[1]!({ stale: false, value: { pods: [], ports: [] } as unknown as Analysis, generation: 2 });
    await tick();
    expect(s.getState().analysis.revision).toBe(1);
    expect(calls.filter((c) => c.startsWith("connlist"))).toHaveLength(2);
  });
});
