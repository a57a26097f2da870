import { readFile } from "node:fs/promises";
import { expect, type Locator, type Page } from "@playwright/test";

export type RulesModeLabel = "iptables" | "nftables" | "IPVS";
const MODE_OF: Record<RulesModeLabel, string> = { iptables: "iptables", nftables: "nftables", IPVS: "ipvs" };

/** The Node rules tab: one node's kube-proxy rules as `ktl iptables|nft|ipvs --node NAME` prints them, and a question's walk through them. */
export class NodeRulesPanel {
  readonly root: Locator;
  readonly text: Locator;
  readonly walk: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId("node-rules");
    this.text = this.root.getByTestId("rules-text");
    this.walk = this.root.getByTestId("rules-walk");
  }

  async open(): Promise<void> {
    await this.page.getByRole("tab", { name: "Node rules" }).click();
    await expect(this.root).toBeVisible();
  }

  /** Selects a cluster node in the graph by its title (pods sit inside its box), then opens its rules from the details. */
  async selectNodeInGraph(name: string): Promise<void> {
    // Nodes are boxes of the topology view (the paths view, the default, draws workloads).
    await this.page.getByRole("combobox", { name: "View" }).selectOption("topology");
    await this.page
      .getByTestId("graph")
      .locator(`.react-flow__node[data-id="node:${name}"]`)
      .click({ position: { x: 12, y: 8 } });
    await this.page.getByTestId("details").getByRole("button", { name: "Show its kube-proxy rules" }).click();
    await expect(this.root).toBeVisible();
  }

  async pickNode(name: string): Promise<void> {
    await this.root.getByLabel("Node", { exact: true }).selectOption(name);
  }

  async setMode(label: RulesModeLabel): Promise<void> {
    await this.root
      .getByRole("group", { name: "Proxy mode" })
      .getByRole("button", { name: label, exact: true })
      .click();
  }

  /** Waits until the rules on screen are the ones asked for. */
  async expectShown(node: string, mode: RulesModeLabel): Promise<void> {
    await expect(this.root).toHaveAttribute("data-status", "ready", { timeout: 20_000 });
    await expect(this.root).toHaveAttribute("data-node", node);
    await expect(this.root).toHaveAttribute("data-mode", MODE_OF[mode]);
  }

  /** Rendered lines (only those near the view are in the page). */
  lines(): Locator {
    return this.text.locator(".rl");
  }

  line(number: number): Locator {
    return this.text.locator(`.rl[data-line="${number}"]`);
  }

  /** The lines the question's packet matched, numbered in order. */
  matchedLines(): Locator {
    return this.text.locator(".rl[data-step]");
  }

  /** The rule that dropped or rejected the packet. */
  stoppingLine(): Locator {
    return this.text.locator(".rl[data-stop]");
  }

  /** Rule chips of the walk, in order; a click scrolls to the rule. */
  ruleChips(): Locator {
    return this.walk.getByRole("list", { name: "Rules matched, in order" }).getByRole("button");
  }

  /** Follows a matched line's link to its trace hop. */
  async followHop(line: Locator): Promise<void> {
    await line.getByRole("button", { name: /show hop/ }).click();
  }

  /** The full text as the panel saves it. */
  async download(): Promise<{ name: string; text: string }> {
    const [d] = await Promise.all([
      this.page.waitForEvent("download"),
      this.root.getByRole("button", { name: "Download rules" }).click(),
    ]);
    return { name: d.suggestedFilename(), text: await readFile((await d.path())!, "utf8") };
  }
}
