/**
 * What the playground opens with: a share link in the URL, else the work
 * saved in this browser, else the default scenario. A damaged link is a
 * message, and the saved work opens as if there were no link.
 */
import { decodeShare, payloadFromHash } from "../share/codec.ts";
import { defaultScenario } from "../../scenarios/index.ts";
import type { InitialState } from "./createAppStore.ts";
import { keepPrevious, loadTests, loadTheme, loadView, loadWork, type StorageLike } from "./persistence.ts";
import type { Notice, Theme } from "./types.ts";

export interface Bootstrap {
  initial: InitialState;
  notice: Notice | undefined;
  /** The URL's share hash was read (valid or not) and should be removed, so that later edits survive a reload. */
  consumedHash: boolean;
  /** The link's text to compare the opened text with (a pull request's base): its changes are marked as a what-if's. */
  before?: string;
}

export function bootstrap(hash: string, storage: StorageLike | undefined, preferredTheme: Theme): Bootstrap {
  const theme = loadTheme(storage) ?? preferredTheme;
  const saved = loadWork(storage);
  const fallback = (): InitialState => {
    if (saved) {
      const view = loadView(storage);
      return {
        text: saved.text,
        scenarioId: saved.scenarioId,
        origin: "storage",
        theme,
        ...(view ? { view } : {}),
      };
    }
    const s = defaultScenario();
    return { text: s.manifests, scenarioId: s.id, origin: "default", theme };
  };
  // The Tests tab's file is this browser's, whatever the text opens with.
  const tests = loadTests(storage);
  const withTests = (i: InitialState): InitialState => (tests ? { ...i, tests } : i);
  const payload = payloadFromHash(hash);
  if (payload === undefined)
    return { initial: withTests(fallback()), notice: undefined, consumedHash: false };
  const r = decodeShare(payload);
  if (!r.ok) {
    const kept = saved ? "Your own text is open as you left it." : "The default scenario is open instead.";
    return {
      initial: withTests(fallback()),
      notice: { kind: "error", text: `${r.error} ${kept}` },
      consumedHash: true,
    };
  }
  // The text in this browser is kept before the link's text can be saved over it (and before it is analysed).
  const replaced = saved !== undefined && saved.text !== r.input.text;
  const kept = replaced && keepPrevious(storage, saved.text);
  const notice: Notice = replaced
    ? {
        kind: "info",
        text: kept
          ? "Opened the scenario from the link. The text you had in this browser is kept: Restore previous text brings it back."
          : "Opened the scenario from the link. It replaced the text you had in this browser.",
        undoText: saved.text,
        undoLabel: "Restore previous text",
      }
    : { kind: "info", text: "Opened the scenario from the link." };
  const initial = {
    text: r.input.text,
    scenarioId: r.input.scenario,
    origin: "share" as const,
    theme,
    ...(r.input.view ? { view: r.input.view } : {}),
  };
  return {
    initial: withTests(initial),
    notice,
    consumedHash: false,
    ...(r.input.before !== undefined ? { before: r.input.before } : {}),
  };
}
