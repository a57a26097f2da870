import { describe, expect, it } from "vitest";
import { moveCell, pageRows, scrollToShow, type Cell, type GridKey } from "./grid.ts";

/** Keys as the WAI-ARIA Authoring Practices "Data Grid" pattern (keyboard interaction for grids) defines them. */
describe("moveCell", () => {
  const size = { rows: 200, cols: 200, page: 20 };
  const cases: [string, Cell, GridKey, Cell | undefined][] = [
    ["right", { row: 5, col: 5 }, { key: "ArrowRight" }, { row: 5, col: 6 }],
    ["left", { row: 5, col: 5 }, { key: "ArrowLeft" }, { row: 5, col: 4 }],
    ["down", { row: 5, col: 5 }, { key: "ArrowDown" }, { row: 6, col: 5 }],
    ["up", { row: 5, col: 5 }, { key: "ArrowUp" }, { row: 4, col: 5 }],
    [
      "right at the last column stays (no wrap)",
      { row: 5, col: 199 },
      { key: "ArrowRight" },
      { row: 5, col: 199 },
    ],
    ["left at the first column stays", { row: 5, col: 0 }, { key: "ArrowLeft" }, { row: 5, col: 0 }],
    ["up at the first row stays", { row: 0, col: 3 }, { key: "ArrowUp" }, { row: 0, col: 3 }],
    ["down at the last row stays", { row: 199, col: 3 }, { key: "ArrowDown" }, { row: 199, col: 3 }],
    ["Home: first cell of the row", { row: 7, col: 50 }, { key: "Home" }, { row: 7, col: 0 }],
    ["End: last cell of the row", { row: 7, col: 50 }, { key: "End" }, { row: 7, col: 199 }],
    [
      "Ctrl+Home: first cell of the grid",
      { row: 7, col: 50 },
      { key: "Home", ctrlKey: true },
      { row: 0, col: 0 },
    ],
    [
      "Ctrl+End: last cell of the grid",
      { row: 7, col: 50 },
      { key: "End", ctrlKey: true },
      { row: 199, col: 199 },
    ],
    [
      "Cmd+End (macOS) as Ctrl+End",
      { row: 7, col: 50 },
      { key: "End", metaKey: true },
      { row: 199, col: 199 },
    ],
    ["PageDown: a page of rows", { row: 7, col: 50 }, { key: "PageDown" }, { row: 27, col: 50 }],
    ["PageUp: a page of rows", { row: 27, col: 50 }, { key: "PageUp" }, { row: 7, col: 50 }],
    ["PageDown near the end: the last row", { row: 190, col: 1 }, { key: "PageDown" }, { row: 199, col: 1 }],
    ["PageUp near the start: the first row", { row: 3, col: 1 }, { key: "PageUp" }, { row: 0, col: 1 }],
    [
      "a position past the grid (it shrank) is clamped first",
      { row: 500, col: 500 },
      { key: "ArrowUp" },
      { row: 198, col: 199 },
    ],
    ["Enter is the cell's own click, not a move", { row: 1, col: 1 }, { key: "Enter" }, undefined],
    ["Tab leaves the grid", { row: 1, col: 1 }, { key: "Tab" }, undefined],
    ["a letter is not a grid key", { row: 1, col: 1 }, { key: "a" }, undefined],
  ];
  it.each(cases)("%s", (_name, at, key, want) => {
    expect(moveCell(at, key, size)).toEqual(want);
  });

  it("an empty grid has nowhere to go", () => {
    expect(moveCell({ row: 0, col: 0 }, { key: "ArrowDown" }, { rows: 0, cols: 0, page: 1 })).toBeUndefined();
  });

  it("a page is at least one row", () => {
    expect(moveCell({ row: 0, col: 0 }, { key: "PageDown" }, { rows: 9, cols: 9, page: 0 })).toEqual({
      row: 1,
      col: 0,
    });
  });
});

describe("scrollToShow", () => {
  // Cells of 24 px under a 150 px sticky header, in a 510 px viewport: 15 whole rows show.
  const cases: [string, number, number, number][] = [
    ["already in view: unchanged", 0, 3, 0],
    ["the last whole row in view: unchanged", 0, 14, 0],
    ["one row past the bottom: scroll by the overflow", 0, 15, 150 + 16 * 24 - 510],
    ["far below: its bottom at the viewport's bottom", 0, 100, 150 + 101 * 24 - 510],
    ["above the top (hidden under the header): its top just under the header", 2400, 20, 20 * 24],
    ["the first row from anywhere: scroll to 0", 999, 0, 0],
  ];
  it.each(cases)("%s", (_name, current, index, want) => {
    expect(scrollToShow(current, index, 24, 150, 510)).toBe(want);
  });

  it("a viewport smaller than one cell shows the cell's start", () => {
    expect(scrollToShow(0, 10, 24, 150, 160)).toBe(240);
  });
});

describe("pageRows", () => {
  it.each([
    [510, 150, 24, 15],
    [100, 150, 24, 1],
    [174, 150, 24, 1],
  ])("viewport %i, head %i, cell %i: %i rows", (viewport, head, cell, want) => {
    expect(pageRows(viewport, head, cell)).toBe(want);
  });
});
