/**
 * netpol-analyzer's focus options (its cmd `list --focusworkload`, `--focusworkload-peer`,
 * `--focus-direction`, `--focus-conn`) narrow the decider's connectivity list and judge nothing.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseManifests } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import { computeConnlist } from "./index.ts";
import { endMatches, focusConnlist, parseFocus, type ConnlistFocus } from "./focus.ts";

const text = readFileSync(
  new URL("../../../scenarios/01-trace-a-shop-across-zones/manifests.yaml", import.meta.url),
  "utf8",
);
const list = computeConnlist(buildModel(parseManifests([{ name: "m.yaml", text }])));
const focus = (o: Parameters<typeof parseFocus>[0]) => {
  const f = parseFocus(o);
  if ("error" in f) throw new Error(f.error);
  return focusConnlist(list, f as ConnlistFocus).lines.map((l) => `${l.src} => ${l.dst} : ${l.conn}`);
};

describe("focus on the connectivity list", () => {
  it("a workload by name, namespace/name or Kind/namespace/name: its lines both ways, and only them", () => {
    const mine = list.lines
      .filter((l) => l.src === "shop/backend[StatefulSet]" || l.dst === "shop/backend[StatefulSet]")
      .map((l) => `${l.src} => ${l.dst} : ${l.conn}`);
    expect(mine.length).toBeGreaterThan(1);
    expect(focus({ workload: "backend" })).toEqual(mine);
    expect(focus({ workload: "shop/backend" })).toEqual(mine);
    expect(focus({ workload: "statefulset/shop/backend" })).toEqual(mine);
    expect(focus({ workload: "tools/backend" })).toEqual([]);
  });

  it("direction and peer narrow it further", () => {
    expect(focus({ workload: "backend", direction: "ingress" })).toEqual([
      "shop/frontend[StatefulSet] => shop/backend[StatefulSet] : TCP 8080",
    ]);
    expect(
      focus({ workload: "backend", direction: "egress" }).every((l) => l.startsWith("shop/backend[")),
    ).toBe(true);
    expect(focus({ workload: "backend", peer: "cache" })).toEqual([
      "shop/backend[StatefulSet] => shop/cache[StatefulSet] : TCP 6379",
    ]);
  });

  it("a connection keeps the lines that permit it, each shown with it alone", () => {
    const lines = focus({ conn: "tcp-6379" });
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/ : TCP 6379$/);
    // All Connections permits it too; a line on other ports does not.
    expect(lines).toContain("shop/backend[StatefulSet] => shop/cache[StatefulSet] : TCP 6379");
    expect(lines.some((l) => l.startsWith("shop/frontend[StatefulSet] => shop/backend"))).toBe(false);
  });

  it("says what is wrong with a focus rather than guessing", () => {
    expect(parseFocus({ conn: "8080" })).toMatchObject({ error: expect.stringMatching(/PROTOCOL-PORT/) });
    expect(parseFocus({ direction: "in", workload: "a" })).toMatchObject({
      error: expect.stringMatching(/ingress or egress/),
    });
    expect(parseFocus({ direction: "ingress" })).toMatchObject({
      error: expect.stringMatching(/needs --focusworkload/),
    });
    expect(parseFocus({ peer: "x" })).toMatchObject({
      error: expect.stringMatching(/needs --focusworkload/),
    });
  });

  it("an IP range or the ingress controller is no workload", () => {
    expect(endMatches("0.0.0.0-255.255.255.255[External]", "0.0.0.0-255.255.255.255")).toBe(false);
    expect(endMatches("{ingress-controller}", "ingress-controller")).toBe(false);
  });
});
