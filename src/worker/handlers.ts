/**
 * The engine worker's handler map: a thin layer over the analysis facade and
 * the what-if rewrite. It keeps one session (the model) per editor text, and
 * the previous one (sessionCache.ts), and the analyses it sent last, so that
 * an analysis goes back as a delta against the one the page holds (delta.ts).
 * A factory, so that tests drive it without a worker (engine.worker.ts posts
 * its answers).
 */
import {
  KeptAnswer,
  openAnalysis,
  type Analysis,
  type AnalysisProgress,
  type AnalysisSession,
} from "../engine/analysis/index.ts";
import { applyWhatIf } from "../engine/whatif/index.ts";
import { diffTexts } from "../engine/diff/index.ts";
import { editForEdge } from "../engine/observe/edge.ts";
import { suggestForText } from "../engine/observe/suggest.ts";
import { messageFor } from "./delta.ts";
import type { ClusterAssumptions, CniName } from "../engine/cni/profile.ts";
import type { EngineHandlers } from "./protocol.ts";
import { createSessionCache } from "./sessionCache.ts";
import { YamlPartCache } from "../engine/parse/yaml.ts";

/** How long an analysis runs before its steps after the first are posted (`report` below). */
const PROGRESS_QUIET_MS = 100;

/** The analyses kept as bases a delta can be made against. */
const SENT_KEPT = 3;

export interface EngineState {
  handlers: EngineHandlers;
  /** The client's generation of the text analysed last; the worker echoes it with every answer. */
  readonly generation: number;
}

export interface EngineHandlerOptions {
  /** Each step of an analysis as it starts, with the client's generation of its text (posted to the page). */
  onProgress?: (p: AnalysisProgress, generation: number) => void;
  /** The clock the quiet time of `onProgress` is read on (ms); tests give their own. */
  now?: () => number;
}

export function createEngineHandlers(options: EngineHandlerOptions = {}): EngineState {
  /** The generation of the text being analysed now: its progress is reported under it. */
  let analysing = 0;
  const now = options.now ?? (() => performance.now());
  /** When the analysis of `analysing` began (ms). */
  let began = 0;
  /**
   * An analysis's first step goes to the page at once, the later ones once it has run PROGRESS_QUIET_MS:
   * an analysis shorter than that (an edit at a few hundred pods) is over long before the page shows a
   * step (LoadProgress, after a second), and each step was a message and a store update on the page.
   */
  const report = (p: AnalysisProgress) => {
    if (p.step > 1 && now() - began < PROGRESS_QUIET_MS) return;
    options.onProgress?.(p, analysing);
  };
  /** The docs of the texts analysed last: an edit re-parses only the docs it changed. */
  const parseCache = new YamlPartCache();
  /** The last analysis's flows: an unchanged flow is sent as the object the page holds (engine kept.ts). */
  const keep = new KeptAnswer();
  /**
   * The parse cache's count of parts moved in place when each session was opened: a later parse that moved
   * some of its values (yaml.ts relocate) leaves them reading positions in the newer text, so such a session
   * is analysed again rather than reused (an undo after an edit that shifted the docs below it).
   */
  const parsedAt = new WeakMap<AnalysisSession, number>();
  // The variant is the profile: the CNI, then the assumptions as JSON ("cilium|{...}").
  const sessions = createSessionCache<AnalysisSession>(
    (text, file, variant) => {
      const bar = variant.indexOf("|");
      const cni = bar < 0 ? variant : variant.slice(0, bar);
      const assume = bar < 0 ? undefined : (JSON.parse(variant.slice(bar + 1)) as ClusterAssumptions);
      const session = openAnalysis([{ name: file, text }], {
        parseCache,
        keep,
        ...(options.onProgress ? { onProgress: (p: AnalysisProgress) => report(p) } : {}),
        ...(cni ? { cni: cni as CniName } : {}),
        ...(assume ? { assume } : {}),
      });
      parsedAt.set(session, parseCache.movedInPlace);
      return session;
    },
    { fresh: (s) => parsedAt.get(s) === parseCache.movedInPlace },
  );
  let generation = 0;
  /** The profile of the last analysis (the toolbar's): what-if and diff compare under it too. */
  let chosen: CniName | undefined;
  /** The analyses sent last, by the client's generation: the bases a delta can be made against. */
  let sent: { generation: number; value: Analysis }[] = [];

  const profile = () => (chosen ? { cni: chosen } : {});

  function current(): AnalysisSession {
    const session = sessions.current;
    if (!session) throw new Error("no scenario has been analysed yet");
    return session;
  }

  const handlers: EngineHandlers = {
    analyze({ text, file, generation: g, base, cni, assume }) {
      analysing = g;
      began = now();
      const session = sessions.open(text, file, `${cni ?? ""}${assume ? `|${JSON.stringify(assume)}` : ""}`);
      generation = g;
      chosen = cni;
      const held = base === undefined ? undefined : sent.find((s) => s.generation === base);
      const message = messageFor(session.analysis, held);
      sent = [{ generation: g, value: session.analysis }, ...sent.filter((s) => s.generation !== g)].slice(
        0,
        SENT_KEPT,
      );
      return message;
    },
    validate: () => current().validate(),
    trace: (q) => current().trace(q),
    matrix: (q) => current().matrix(q),
    rules: (q) => current().rules(q),
    connlist: ({ format }) => current().connlist(format),
    tests: (q) => current().tests(q),
    observe: (q) => current().observe(q),
    whatIf({ text, op }) {
      const result = applyWhatIf(text, op);
      return result.changed
        ? { result, diff: diffTexts(text, result.text, undefined, profile()) }
        : { result };
    },
    edgeEdit({ text, file, query }) {
      const result = editForEdge({ text, file, options: profile() }, query);
      return result.changed
        ? { result, diff: diffTexts(text, result.text, undefined, profile()) }
        : { result };
    },
    suggest({ text, file, flows }) {
      const result = suggestForText({ text, file, options: profile() }, flows);
      return result.changed
        ? { result, diff: diffTexts(text, result.text, undefined, profile()) }
        : { result };
    },
    diff: ({ before, after }) => diffTexts(before, after, undefined, profile()),
  };
  return {
    handlers,
    get generation() {
      return generation;
    },
  };
}
