/**
 * A link never takes the user's work with it (issue 16): the text in this
 * browser is kept under its own key before the link's text is saved over it,
 * and loads back even after a reload.
 */
import { describe, expect, it } from "vitest";
import { encodeShare, hashFor } from "../share/codec.ts";
import { bootstrap } from "./bootstrap.ts";
import { loadPrevious, PREVIOUS_KEY, WORK_KEY, type StorageLike } from "./persistence.ts";

function storage(init: Record<string, string> = {}): StorageLike & { map: Map<string, string> } {
  const map = new Map(Object.entries(init));
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

function link(text: string): string {
  const r = encodeShare({ text });
  if (!r.ok) throw new Error(r.error);
  return hashFor(r.payload);
}

describe("a share link opened over saved work", () => {
  it("keeps the saved text under its own key before the link's text is used, and offers to restore it", () => {
    const s = storage({ [WORK_KEY]: JSON.stringify({ text: "# my work\n" }) });
    const boot = bootstrap(link("a: &a [*a]\n"), s, "light");
    expect(boot.initial.text).toBe("a: &a [*a]\n");
    expect(loadPrevious(s)).toBe("# my work\n");
    expect(boot.notice).toMatchObject({ undoText: "# my work\n", undoLabel: "Restore previous text" });
    expect(boot.notice!.text).toContain("is kept");
  });

  it("keeps nothing when the link holds the same text, or there was no work", () => {
    const same = storage({ [WORK_KEY]: JSON.stringify({ text: "x: 1\n" }) });
    bootstrap(link("x: 1\n"), same, "light");
    expect(same.map.has(PREVIOUS_KEY)).toBe(false);
    const empty = storage();
    bootstrap(link("x: 1\n"), empty, "light");
    expect(empty.map.has(PREVIOUS_KEY)).toBe(false);
  });
});
