import { describe, expect, it } from "vitest";
import { mdCell, mdCodeCell, mdTable, mdText } from "./markdown.ts";

describe("Markdown from plain text (one writer for ktl's --format md, the exports and the handout)", () => {
  it("HTML stays text, Markdown's marks are escaped, a line break does not end the line", () => {
    expect(mdText("<img src=x onerror=alert(1)> & *bold* _it_ `code` [link]\\n\nnext")).toBe(
      "&lt;img src=x onerror=alert(1)&gt; &amp; \\*bold\\* \\_it\\_ \\`code\\` \\[link\\]\\\\n next",
    );
  });
  it("a cell escapes its pipes too; a table escapes every cell", () => {
    expect(mdCell("a|b")).toBe("a\\|b");
    expect(mdTable(["x|y"], [["<b>"]])).toBe("| x\\|y |\n| --- |\n| &lt;b&gt; |");
  });
  it("a code cell is a code span: nothing escaped but pipes, its fence longer than any backtick run in it", () => {
    expect(mdCodeCell("from: a_b <c>")).toBe("`from: a_b <c>`");
    expect(mdCodeCell("x | y\nz")).toBe("`x \\| y z`");
    // A span that ends in a backtick is padded on both sides (CommonMark strips one space each side).
    expect(mdCodeCell("uses `tick`")).toBe("`` uses `tick` ``");
    expect(mdCodeCell("``")).toBe("``` `` ```");
  });
});
