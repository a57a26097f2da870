import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

const lesson14 = readFileSync(
  join(import.meta.dirname, "../scenarios/14-resolve-a-named-target-port/manifests.yaml"),
  "utf8",
);

test.describe("exports and imports", () => {
  test("the graph as SVG and PNG, the trace and the matrix as Markdown and JSON, the scenario as YAML", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    const w = new WorkshopPanel(page);

    const svg = await w.export("Graph as SVG");
    expect(svg.name).toBe("01-trace-a-shop-across-zones_graph.svg");
    const svgText = svg.bytes.toString("utf8");
    expect(svgText).toMatch(/^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svgText).toContain('data-source="pod:tools/toolbox" data-target="service:shop/backend"');
    expect(svgText).toContain(">frontend-0<");

    const png = await w.export("Graph as PNG");
    expect(png.name).toBe("01-trace-a-shop-across-zones_graph.png");
    expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.bytes.length).toBeGreaterThan(2000);

    await playground.graph.clickEdge("pod:tools/toolbox", "service:shop/backend");
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");

    // For slides: 16:9, a title with the scenario and the question, the legend, the traced path lit.
    const slide = (await w.export("Graph as SVG")).bytes.toString("utf8");
    expect(slide).toContain('viewBox="0 0 1600 900"');
    const title = /<g data-testid="slide-title">(.*?)<\/g>/.exec(slide)?.[1] ?? "";
    expect(title).toContain(">A shop across two zones<");
    expect(title).toContain(
      "pod:tools/toolbox → service:shop/backend:80 (TCP): dropped: none of the 2 candidate",
    );
    const legend = /<g data-testid="legend"[^>]*>(.*)<\/g>/.exec(slide)?.[1] ?? "";
    for (const label of [
      "allowed",
      "dropped by NetworkPolicy or CNI",
      "dropped by traffic policy",
      "partly allowed",
    ])
      expect(legend).toContain(`>${label}<`);
    expect(slide).toMatch(
      /<g data-lit="true"><path [^>]*data-source="pod:tools\/toolbox" data-target="service:shop\/backend"/,
    );
    expect(slide).toMatch(/<g [^>]*opacity="0\.\d+"><path [^>]*data-verdict="allow"/);

    // The topology view: zone titles are words apart, and no name runs past its box.
    await page.getByRole("combobox", { name: "View" }).selectOption("topology");
    await expect(playground.graph.root.locator('[data-testid="zone"]').first()).toBeVisible();
    const topo = (await w.export("Graph as SVG")).bytes.toString("utf8");
    expect(topo).toContain(">zone zone-a<");
    expect(topo).not.toMatch(/>zonezone-/);
    for (const g of topo.matchAll(
      /<rect x="([\d.-]+)" y="[\d.-]+" width="([\d.]+)"[^>]*\/>\s*<text x="[\d.-]+" y="[\d.-]+" font-size="([\d.]+)" font-weight="600"[^>]*>([^<]*)</g,
    )) {
      const [, , width, size, words] = g;
      // Bold text is about 0.7 em a character (graph/text.ts charsFor): the name fits inside its box.
      expect(words!.length * Number(size) * 0.7, words).toBeLessThanOrEqual(Number(width));
    }
    await page.getByRole("combobox", { name: "View" }).selectOption("auto");
    const md = await w.export("Trace as Markdown");
    expect(md.name).toBe("trace_pod-tools-toolbox_service-shop-backend-80.md");
    expect(md.bytes.toString("utf8")).toMatch(
      /^# Trace pod:tools\/toolbox → service:shop\/backend:80 \(TCP\)\n\n\*\*DROP\*\*/,
    );
    const json = JSON.parse((await w.export("Trace as JSON")).bytes.toString("utf8"));
    expect(json.query).toEqual({ from: "pod:tools/toolbox", to: "service:shop/backend:80", protocol: "TCP" });
    expect(json.trace.verdict).toBe("drop");

    const mmd = await w.export("Matrix as Markdown");
    expect(mmd.name).toMatch(/^01-trace-a-shop-across-zones_matrix_\d+-TCP_pod\.md$/);
    expect(mmd.bytes.toString("utf8")).toContain("| from \\ to |");
    const mjson = JSON.parse((await w.export("Matrix as JSON")).bytes.toString("utf8"));
    expect(mjson.ids).toContain("pod:tools/toolbox");

    const yaml = await w.export("Scenario as YAML");
    expect(yaml.name).toBe("01-trace-a-shop-across-zones.yaml");
    expect(yaml.bytes.toString("utf8")).toBe(await playground.editorText());
  });

  test("a file opens from the picker and by drag and drop, and the notice undoes it", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    const w = new WorkshopPanel(page);
    await w.openFile("named-ports.yaml", lesson14);
    await expect(playground.graph.node("pod:shop/api-legacy")).toBeVisible();
    await expect(playground.notice()).toContainText("Opened named-ports.yaml");
    await playground.notice().getByRole("button", { name: "Undo" }).click();
    await expect(playground.graph.node("pod:shop/frontend-0")).toBeVisible();

    await w.dropFile("dropped.yaml", lesson14);
    await expect(playground.graph.node("pod:shop/api-v2")).toBeVisible();
    expect(await playground.editorText()).toBe(lesson14);
  });
});
