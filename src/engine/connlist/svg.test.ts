/** `ktl connlist -o svg`: a picture of the connectivity list that needs no Graphviz. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseManifests } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import { computeConnlist } from "./index.ts";
import { formatConnlist } from "./format.ts";

const text = readFileSync(
  new URL("../../../scenarios/01-trace-a-shop-across-zones/manifests.yaml", import.meta.url),
  "utf8",
);
const list = computeConnlist(buildModel(parseManifests([{ name: "m.yaml", text }])));

describe("connlist as SVG (ktl connlist -o svg)", () => {
  it("draws every line as an arrow between boxes sized to their names, escaped, with no Graphviz", () => {
    const svg = formatConnlist(list, "svg");
    expect(
      svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"'),
    ).toBe(true);
    expect(svg.match(/<path class="edge"/g)?.length).toBe(list.lines.length);
    for (const l of list.lines) expect(svg).toContain(`data-src="${l.src}" data-dst="${l.dst}"`);
    // Names whole: no box cuts its name.
    expect(svg).not.toContain("…");
    expect(svg).toContain(">namespace shop<");
    const evil = formatConnlist({ ...list, lines: [{ ...list.lines[0]!, src: 'a/<b>&"c[Pod]' }] }, "svg");
    expect(evil).not.toContain("<b>");
    expect(evil).toContain("&lt;b&gt;&amp;&quot;c");
  });
});
