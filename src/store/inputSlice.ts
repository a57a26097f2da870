import type { SliceCreator, InputSlice } from "./types.ts";

export const EDITOR_FILE = "manifests.yaml";

export const createInputSlice =
  (initial: {
    text: string;
    scenarioId: string | undefined;
    origin: InputSlice["origin"];
  }): SliceCreator<InputSlice> =>
  (set) => ({
    text: initial.text,
    file: EDITOR_FILE,
    scenarioId: initial.scenarioId,
    origin: initial.origin,
    revision: 0,
    editText: (text, origin = "edit") =>
      set((s) => (s.text === text ? {} : { text, origin, revision: s.revision + 1 })),
    replaceText: (text, origin, scenarioId) =>
      set((s) => ({
        text,
        origin,
        scenarioId,
        revision: s.revision + 1,
        selection: undefined,
        question: undefined,
      })),
  });
