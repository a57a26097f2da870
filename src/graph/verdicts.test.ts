import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { distance, VISIONS } from "./colourVision.ts";
import {
  CATEGORIES,
  PALETTE,
  categoryOf,
  flowLayer,
  layerPasses,
  unplacedByLayer,
  type LayerFilter,
} from "./verdicts.ts";
import { analyzeText } from "../engine/analysis/index.ts";
import { defaultScenario } from "../../scenarios/index.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../bench/generate.mjs";

// Minimum OKLab distances between any two verdict colours (0.02 is about one just-noticeable step).
const MIN_COLOUR = 0.1;
const MIN_GREY = 0.06;
const BACKGROUND = { light: "#ffffff", dark: "#0d1117" };

describe("verdict palette under colour-vision simulations (Machado 2009, OKLab)", () => {
  for (const theme of ["light", "dark"] as const) {
    for (const vision of VISIONS) {
      it(`${theme} theme, ${vision}: every pair of verdict colours stays apart`, () => {
        const p = PALETTE[theme];
        for (let i = 0; i < CATEGORIES.length; i++)
          for (let j = i + 1; j < CATEGORIES.length; j++) {
            const a = CATEGORIES[i]!;
            const b = CATEGORIES[j]!;
            const d = distance(p[a.colour]!, p[b.colour]!, vision);
            expect(d, `${a.id} vs ${b.id}`).toBeGreaterThanOrEqual(
              vision === "achromatopsia" ? MIN_GREY : MIN_COLOUR,
            );
          }
      });
    }
    it(`${theme} theme: every verdict colour stands off the background`, () => {
      for (const c of CATEGORIES)
        for (const vision of VISIONS)
          expect(
            distance(PALETTE[theme][c.colour]!, BACKGROUND[theme], vision),
            `${c.id} ${vision}`,
          ).toBeGreaterThan(0.3);
    });
  }

  it("the simulation is not a no-op: the old red/green pair collapses under deuteranopia", () => {
    expect(distance("#1a8a4a", "#cf2b1c", "normal")).toBeGreaterThan(0.2);
    expect(distance("#cf2b1c", "#8a6d00", "deuteranopia")).toBeLessThan(0.03);
  });

  it("the stylesheet carries the same colours as the table", () => {
    const css = readFileSync(new URL("../app/styles.css", import.meta.url), "utf8");
    for (const theme of ["light", "dark"] as const) {
      const block = css.split(`:root[data-theme="${theme}"]`)[1]!.split("}")[0]!;
      for (const [name, value] of Object.entries(PALETTE[theme]))
        expect(block).toContain(`${name}: ${value};`);
    }
  });
});

describe("not colour alone", () => {
  it("every category differs from every other in line style, arrowhead or glyph as well as colour", () => {
    for (let i = 0; i < CATEGORIES.length; i++)
      for (let j = i + 1; j < CATEGORIES.length; j++) {
        const a = CATEGORIES[i]!;
        const b = CATEGORIES[j]!;
        expect(a.dash !== b.dash, `${a.id}/${b.id} dash`).toBe(true);
        expect(a.glyph !== b.glyph, `${a.id}/${b.id} glyph`).toBe(true);
      }
  });
  it.each([
    ["allow", undefined, undefined, "allow"],
    ["drop", "policy", undefined, "drop"],
    ["drop", "policy", "Admin", "tier"],
    ["drop", "policy", "Baseline", "tier"],
    ["drop", "traffic-policy", undefined, "traffic"],
    ["partial", "policy", "Admin", "partial"],
    ["allow", undefined, "Admin", "allow"],
  ] as const)("%s (%s, tier %s) is drawn as %s", (verdict, cause, tier, id) => {
    expect(categoryOf(verdict, cause, tier).id).toBe(id);
  });
  it("a tier drop and a NetworkPolicy drop are told apart by the legend's words, dash and glyph", () => {
    const tier = categoryOf("drop", "policy", "Admin");
    const np = categoryOf("drop", "policy");
    expect(tier.label).toMatch(/cluster tier/);
    expect(np.label).toMatch(/NetworkPolicy/);
    expect(np.label).not.toMatch(/tier/);
    expect([tier.dash === np.dash, tier.glyph === np.glyph]).toEqual([false, false]);
  });
});

describe("the Decided by filter", () => {
  const np = { kind: "NetworkPolicy", name: "deny", namespace: "a", line: 3 };
  it.each([
    [{ tier: "Admin" as const, decidedBy: [{ kind: "ClusterNetworkPolicy", name: "g", line: 1 }] }, "Admin"],
    [
      {
        tier: "Baseline" as const,
        decidedBy: [{ kind: "BaselineAdminNetworkPolicy", name: "default", line: 1 }],
      },
      "Baseline",
    ],
    [{ decidedBy: [np] }, "NetworkPolicy"],
    [
      {
        layer: "CiliumNetworkPolicy" as const,
        decidedBy: [{ kind: "CiliumNetworkPolicy", name: "c", line: 1 }],
      },
      "CNI",
    ],
    [{ decidedBy: [{ kind: "GlobalNetworkPolicy", name: "c", line: 1 }] }, "CNI"],
    [{ decidedBy: [{ kind: "Service", name: "web", line: 1 }] }, undefined],
    [{ decidedBy: [] }, undefined],
  ] as [Parameters<typeof flowLayer>[0], LayerFilter | undefined][])("%o is decided by %s", (f, layer) => {
    expect(flowLayer(f)).toBe(layer);
    expect(layerPasses("all", f)).toBe(true);
    expect(layerPasses(undefined, f)).toBe(true);
    if (layer) expect(layerPasses(layer, f)).toBe(true);
    expect(layerPasses(layer === "Admin" ? "Baseline" : "Admin", f)).toBe(false);
  });
});

// At scale the dropped pairs (and the admitted ones past the listing limit) are compact records; under the cluster
// tiers they name no deciding layer, so a layer filter cannot draw them: the graph says how many it leaves out
// (L with "Admin tier" showed only allowed edges, as if the Admin tier's denials were none).
describe("the pairs a layer filter cannot place", () => {
  const tiered = analyzeText(
    readFileSync("scenarios/27-hold-an-admin-deny-over-every-namespace/manifests.yaml", "utf8"),
    "manifests.yaml",
    { flowBudget: 0 },
  );
  const plain = analyzeText((generate("S") as { text: string }).text);
  it("under the tiers, every compact drop is unplaced by any layer but all", () => {
    expect(tiered.tiers.length).toBeGreaterThan(0);
    const dropped = tiered.reach!.drops.reduce((n, d) => n + d.count, 0);
    expect(dropped).toBeGreaterThan(0);
    expect(unplacedByLayer(tiered, "Admin")).toEqual({ dropped, admitted: 0 });
    expect(unplacedByLayer(tiered, "NetworkPolicy")).toEqual({ dropped, admitted: 0 });
    expect(unplacedByLayer(tiered, "all")).toBeUndefined();
    expect(unplacedByLayer(tiered, undefined)).toBeUndefined();
  });
  it("under NetworkPolicy alone, only the records that name no policy (decided pair by pair)", () => {
    const pair = plain.reach!.drops.filter((d) => d.decidedBy.length === 0).reduce((n, d) => n + d.count, 0);
    const u = unplacedByLayer(plain, "NetworkPolicy");
    expect(u?.dropped ?? 0).toBe(pair);
    expect(pair).toBeLessThan(plain.reach!.dropped);
  });
  it("a small input has no compact records", () => {
    expect(unplacedByLayer(analyzeText(defaultScenario().manifests), "Admin")).toBeUndefined();
  });
});
