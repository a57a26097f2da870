import { expect, type Locator, type Page } from "@playwright/test";

export type Verdict = "allow" | "drop" | "partial";

/** The traffic graph, driven through its stable hooks: data-verdict, data-source, data-target on every edge. */
export class GraphPanel {
  readonly root: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId("graph");
  }

  edges(): Locator {
    return this.root.locator('[data-testid="flow-edge"]');
  }

  edge(from: string, to: string): Locator {
    return this.root.locator(`[data-testid="flow-edge"][data-source="${from}"][data-target="${to}"]`);
  }

  /** A loop: the flows between members of one folded element, drawn when some are not allowed. */
  loop(id: string): Locator {
    return this.edge(id, id);
  }

  /** The shown label of the edge (its text is one or two lines: the deciding object, then counts and layers). */
  label(from: string, to: string): Locator {
    return this.root.locator(`[data-edge-label="e:${from}->${to}"]`);
  }

  /** Edges whose verdict is not allow. */
  dropEdges(): Locator {
    return this.root.locator('[data-testid="flow-edge"]:not([data-verdict="allow"])');
  }

  node(id: string): Locator {
    return this.root.locator(`.react-flow__node[data-id="${id}"]`);
  }

  async waitForDrawn(): Promise<void> {
    await expect(this.edges().first()).toBeAttached({ timeout: 20_000 });
  }

  async expectEdge(from: string, to: string, verdict: Verdict): Promise<void> {
    await expect(this.edge(from, to)).toHaveAttribute("data-verdict", verdict);
  }

  async expectNoEdge(from: string, to: string): Promise<void> {
    await expect(this.edge(from, to)).toHaveCount(0);
  }

  /** Clicks the edge's wide, invisible hit area (as a mouse user does). */
  async clickEdge(from: string, to: string): Promise<void> {
    // A loop's middle is its glyph, beside the box (its bounding box's centre is on the box).
    if (from === to) {
      await this.edge(from, to).locator(".edge-glyph").click({ force: true });
      return;
    }
    const hit = this.edge(from, to).locator(".react-flow__edge-interaction");
    // A point on the line itself that nothing covers: a curved edge's bounding-box centre may lie on a box.
    const point = () =>
      hit.evaluate((el) => {
        const path = el as SVGPathElement;
        const total = path.getTotalLength();
        const ctm = path.getScreenCTM();
        if (!ctm || !total) return null;
        for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.15, 0.85]) {
          const p = path.getPointAtLength(total * t).matrixTransform(ctm);
          const top = document.elementFromPoint(p.x, p.y);
          if (top && path.parentElement?.contains(top)) return { x: p.x, y: p.y };
        }
        return null;
      });
    let at = await point();
    if (!at) {
      // Off screen in a small pane: a person would fit the view (or pan) first, then click.
      await this.root.locator(".react-flow__controls-fitview").click();
      for (let i = 0; i < 10 && !at; i++) {
        await this.root.page().waitForTimeout(100); // fit view may animate
        at = await point();
      }
    }
    if (at) await this.root.page().mouse.click(at.x, at.y);
    else await hit.dispatchEvent("click");
  }

  /** Clicks an element; one past the pane's edge (a picture larger than the pane at the legible zoom) is brought into view first, as a person zooms out to reach it. */
  async clickNode(id: string): Promise<void> {
    const node = this.node(id);
    const reachable = () =>
      node.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = r.top + Math.min(r.height / 2, 12);
        const top = document.elementFromPoint(x, y);
        return top !== null && el.contains(top);
      });
    for (let i = 0; i < 6 && !(await reachable()); i++) {
      await this.root.locator(".react-flow__controls-zoomout").click();
      await this.root.page().waitForTimeout(150); // the zoom animates
    }
    await node.click();
  }

  /** Every text line drawn in the paths lens's boxes, with whether it overflows its box. */
  async boxLines(): Promise<{ id: string; text: string; overflows: boolean }[]> {
    return this.root.locator(".rf-path .line").evaluateAll((els) =>
      els.map((el) => {
        const box = el.closest(".rf-path") as HTMLElement;
        const r = el.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(el);
        const t = range.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        return {
          id: box.dataset.id ?? "",
          text: el.textContent ?? "",
          overflows: t.right > b.right + 1 || t.left < b.left - 1 || r.bottom > b.bottom + 1,
        };
      }),
    );
  }

  /** The lines of one box (name lines, then second-line lines). */
  boxText(id: string): Locator {
    return this.root.locator(`.rf-path[data-id="${id}"]`);
  }
}
