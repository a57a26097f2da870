import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cellKey, diffMarks, edgeKey } from "./marks.ts";
import { applyWhatIf, diffTexts } from "../../engine/index.ts";

const text = readFileSync(
  join(import.meta.dirname, "../../../scenarios/01-trace-a-shop-across-zones/manifests.yaml"),
  "utf8",
);

describe("diff marks", () => {
  it("a drain marks the lost external edge, the moved endpoint on both ends, the removed pod and its matrix cells", () => {
    const d = diffTexts(text, applyWhatIf(text, { kind: "drain", node: "node-a" }).text);
    const m = diffMarks(d);
    expect(m.summary).toBe(d.summary);
    expect(m.edges.get(edgeKey("external:203.0.113.10", "service:shop/frontend"))).toBe("lost");
    expect(m.edges.get(edgeKey("pod:shop/backend-1", "service:shop/cache"))).toBe("gained");
    // frontend-1 vanishes from node-a's external endpoints and appears in node-b's: one edge, both ways.
    expect(m.edges.get(edgeKey("service:shop/frontend", "pod:shop/frontend-1"))).toBe("mixed");
    expect(m.nodes.get("pod:tools/toolbox")).toBe("removed");
    expect(m.cells.get(cellKey(8080, "TCP", "pod:tools/toolbox", "pod:shop/frontend-0"))).toBe("lost");
  });

  it("no change, no marks", () => {
    const m = diffMarks(diffTexts(text, text));
    expect([m.edges.size, m.nodes.size, m.cells.size]).toEqual([0, 0, 0]);
  });
});
