import { describe, expect, it } from "vitest";
import { CATEGORIES, PALETTE } from "../../graph/verdicts.ts";
import { clip, SLIDE, slideSvg, wrap } from "./slide.ts";

const graph = {
  body: '<g data-id="pod:shop/web-0"><rect x="0" y="0" width="196" height="58"/></g>',
  box: { x: 0, y: 0, width: 600, height: 200 },
};

describe("graph export as a slide", () => {
  it("is 16:9 and carries the title, the question and a legend read from the verdict table", () => {
    const svg = slideSvg({
      title: "A shop across two zones",
      subtitle: "pod:tools/toolbox → service:shop/backend:80 (TCP): dropped. isolated by shop/deny",
      graph,
    });
    expect(SLIDE.width / SLIDE.height).toBeCloseTo(16 / 9, 5);
    expect(svg).toContain(`viewBox="0 0 ${SLIDE.width} ${SLIDE.height}"`);
    const title = /<g data-testid="slide-title">(.*?)<\/g>/.exec(svg)?.[1] ?? "";
    expect(title).toContain(">A shop across two zones<");
    expect(title).toContain("pod:tools/toolbox → service:shop/backend:80 (TCP): dropped.");
    const legend = /<g data-testid="legend"[^>]*>(.*)<\/g>/.exec(svg)?.[1] ?? "";
    for (const c of CATEGORIES.filter((x) => x.id !== "tier")) {
      expect(legend).toContain(`data-category="${c.id}"`);
      expect(legend).toContain(`>${c.label}<`);
      // Each legend line has the category's own colour, dash and arrowhead.
      expect(legend).toContain(`stroke="${PALETTE.light[c.colour]}"`);
      if (c.dash) expect(legend).toContain(`stroke-dasharray="${c.dash}"`);
      expect(svg).toContain(`<marker id="ktl-x-arrow-${c.id}"`);
    }
    expect(svg).toContain('data-id="pod:shop/web-0"');
  });

  it("lists the cluster tier's drop only when the graph draws one, and keeps the row inside the slide", () => {
    const legendOf = (svg: string) => /<g data-testid="legend"([^>]*)>(.*)<\/g>/.exec(svg) ?? [];
    const plain = legendOf(slideSvg({ title: "t", graph }));
    expect(plain[2]).not.toContain('data-category="tier"');
    const tiered = legendOf(
      slideSvg({ title: "t", graph: { ...graph, body: `${graph.body}<g data-category="tier"></g>` } }),
    );
    expect(tiered[2]).toContain('data-category="tier"');
    expect(tiered[2]).toContain(">dropped by a cluster tier (Admin, Baseline)<");
    // Five entries are wider than the slide at 20 px: the row is scaled to fit between the margins.
    const k = Number(/scale\(([\d.]+)\)/.exec(tiered[1] ?? "")?.[1]);
    expect(k).toBeGreaterThan(0.6);
    expect(k).toBeLessThan(1);
  });

  it("uses the theme's colours when given, and escapes names", () => {
    const svg = slideSvg({
      title: 'ns <script>alert("x")</script>',
      graph,
      colours: PALETTE.dark,
      background: "#101418",
    });
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("ns &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(svg).toContain(`stroke="${PALETTE.dark["--drop"]}"`);
  });

  it("a long title or question is cut to the slide's width (the question in two lines), never past it", () => {
    const long = "x".repeat(400);
    const svg = slideSvg({ title: long, subtitle: long, graph });
    const drawn = /<g data-testid="slide-title">(.*?)<\/g>/.exec(svg)?.[1] ?? "";
    // About 0.6 em a character: the title (34 px) and the question (22 px) stay within the 1520 px band.
    const lines = [...drawn.matchAll(/font-size="(\d+)"[^>]*>([^<]*)</g)];
    expect(lines).toHaveLength(3);
    for (const [, size, words] of lines) expect(words!.length * Number(size) * 0.6).toBeLessThan(1520 * 1.05);
    expect(clip("abcdef", 4)).toBe("abc…");
    expect(wrap("one two three four", 9, 2)).toEqual(["one two", "three fo…"]);
    expect(wrap("one two", 9, 2)).toEqual(["one two"]);
    expect(clip("abc", 4)).toBe("abc");
  });
});

describe("the slide's legend has every edge style of the picture", () => {
  it("the loop a folded box draws for drops among its members, when the picture has one", () => {
    const legendOf = (svg: string) => /<g data-testid="legend"[^>]*>(.*)<\/g>/.exec(svg)?.[1] ?? "";
    expect(legendOf(slideSvg({ title: "t", graph }))).not.toContain('data-shape="loop"');
    const looped = legendOf(
      slideSvg({
        title: "t",
        graph: { ...graph, body: `${graph.body}<path data-category="drop" data-loop="true"/>` },
      }),
    );
    expect(looped).toContain('data-shape="loop"');
    expect(looped).toContain(">drops inside a box<");
  });

  it("the isolation hairline (refused on both sides), when the picture draws one", () => {
    const legendOf = (svg: string) => /<g data-testid="legend"[^>]*>(.*)<\/g>/.exec(svg)?.[1] ?? "";
    expect(legendOf(slideSvg({ title: "t", graph }))).not.toContain('data-shape="quiet"');
    const quiet = legendOf(
      slideSvg({
        title: "t",
        graph: { ...graph, body: `${graph.body}<path data-category="drop" data-quiet="true"/>` },
      }),
    );
    expect(quiet).toContain('data-shape="quiet"');
    expect(quiet).toContain(">refused on both sides (isolation)<");
  });
});
