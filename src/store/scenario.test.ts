/** A paste is a new scenario (issue 30): what belonged to the old text resets, undoably; the share link carries the graph as drawn. */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createAppStore } from "./createAppStore.ts";
import { filtersFor, sameScenario } from "./scenarioSlice.ts";
import { analyzeText } from "../engine/analysis/index.ts";
import { graphPorts, portKey } from "../graph/model.ts";
import { defaultScenario } from "../../scenarios/index.ts";
import { LESSONS } from "../../scenarios/lessons.ts";
import { sanitizeView, viewOf } from "../share/view.ts";
import { decodeShare, encodeShare } from "../share/codec.ts";

const bookinfo = readFileSync("e2e/fixtures/real-apps/bookinfo.yaml", "utf8");
const lesson = LESSONS.find((l) => l.number === 12)!;

describe("a paste is a new scenario", () => {
  it("a whole-text paste of other manifests is new; a reworked copy of the same ones is an edit", () => {
    const shop = defaultScenario().manifests;
    expect(sameScenario(shop, bookinfo)).toBe(false);
    expect(sameScenario(shop, shop.replace("replicas: 2", "replicas: 3"))).toBe(true);
    expect(sameScenario(shop, `${shop}\n---\nkind: Namespace\nmetadata: {name: extra}\n`)).toBe(true);
  });

  it("resets the question, the lesson and its step, the opened boxes and the selection; Undo puts all back", () => {
    const store = createAppStore({ text: lesson.manifests, scenarioId: lesson.id, origin: "scenario" });
    const s = store.getState();
    s.showAnswer(true);
    s.ask({ from: "pod:shop/checkout", to: "service:shop/web:80", protocol: "TCP" });
    s.setGraphOpen("ns:shop", false);
    s.setFilters({ onlyDrops: true, port: "80/TCP" });
    s.setPresenting(true);
    store.getState().newScenario(bookinfo, "edit", "The pasted text");
    const after = store.getState();
    expect(after.text).toBe(bookinfo);
    expect(after.scenarioId).toBeUndefined();
    expect(after.question).toBeUndefined();
    expect(after.selection).toBeUndefined();
    expect(after.graphOpen).toEqual({});
    expect(after.answerShown).toBe(false);
    expect(after.presenting).toBe(false);
    expect(after.notice?.undoScenario).toBe(true);
    expect(after.notice?.text).toMatch(/the question, the lesson and the opened boxes were reset/);
    // The filters wait for the new analysis: Only drops applies anywhere, port 80 is not in Bookinfo.
    expect(after.filters.onlyDrops).toBe(true);
    store.getState().analysisForNewScenario(after.revision, analyzeText(bookinfo));
    expect(store.getState().filters).toEqual({ hiddenNamespaces: [], port: "all", onlyDrops: true });
    store.getState().undoNewScenario();
    const back = store.getState();
    expect(back.text).toBe(lesson.manifests);
    expect(back.scenarioId).toBe(lesson.id);
    expect(back.question?.from).toBe("pod:shop/checkout");
    expect(back.graphOpen).toEqual({ "ns:shop": false });
    expect(back.filters.port).toBe("80/TCP");
    expect(back.answerShown).toBe(true);
  });

  it("filters keep what still applies: a namespace, port and layer the new input has", () => {
    const a = analyzeText(bookinfo);
    expect(
      filtersFor({ hiddenNamespaces: ["default", "gone"], port: "9080/TCP", onlyDrops: false }, a),
    ).toEqual({
      hiddenNamespaces: ["default"],
      port: "9080/TCP",
      onlyDrops: false,
    });
    expect(filtersFor({ hiddenNamespaces: [], port: "all", onlyDrops: false, layer: "Admin" }, a).layer).toBe(
      undefined,
    );
  });
});

describe("the port filter offers what the graph draws", () => {
  it("at scale the menu and the kept choice read one list: every port of the listed flows and the compact records", () => {
    // No flow traced pair by pair and none listed: the Services' pairs are compact records (drops and admitted).
    const a = analyzeText(bookinfo, "bookinfo.yaml", { flowBudget: 0, workloadFlowLimit: 0 });
    const records = [...(a.reach?.drops ?? []), ...(a.reach?.allowed ?? [])];
    expect(records.length).toBeGreaterThan(0);
    const offered = graphPorts(a).map((p) => p.key);
    for (const x of [...a.flows, ...(a.reach?.flows ?? []), ...records])
      expect(offered).toContain(portKey(x.port, x.protocol));
    for (const key of offered)
      expect(filtersFor({ hiddenNamespaces: [], port: key, onlyDrops: false }, a).port).toBe(key);
    expect(filtersFor({ hiddenNamespaces: [], port: "7/UDP", onlyDrops: false }, a).port).toBe("all");
  });
});

describe("the share link carries the graph as drawn", () => {
  it("grouping, lens, opened boxes, families and the selected element go into the link and come back", () => {
    const store = createAppStore({ text: bookinfo, scenarioId: undefined, origin: "default" });
    const s = store.getState();
    s.setGrouping("namespace");
    s.setGraphOpen("ns:default", true);
    s.setGraphOpen("workload:default/Deployment/reviews-v2", true);
    s.setNsGroupBy("prefix");
    s.setGraphLens("paths");
    s.select({ kind: "group", id: "group:workload:default/Deployment/reviews-v1" });
    const r = encodeShare({ text: bookinfo, view: viewOf(store.getState()) });
    expect(r.ok).toBe(true);
    const d = decodeShare(r.ok ? r.payload : "");
    expect(d.ok).toBe(true);
    const opened = createAppStore({
      text: bookinfo,
      scenarioId: undefined,
      origin: "share",
      ...(d.ok && d.input.view ? { view: d.input.view } : {}),
    }).getState();
    expect(opened.grouping).toBe("namespace");
    expect(opened.graphLens).toBe("paths");
    expect(opened.nsGroupBy).toBe("prefix");
    expect(opened.graphOpen).toEqual({ "ns:default": true, "workload:default/Deployment/reviews-v2": true });
    expect(opened.selection).toEqual({ kind: "group", id: "group:workload:default/Deployment/reviews-v1" });
  });

  it("a view from elsewhere keeps only what it understands", () => {
    expect(
      sanitizeView({
        graph: {
          grouping: "everything",
          open: { "ns:a": true, "<script>": true, "nsg:team=x": "yes" },
          selection: { kind: "zap", id: "x" },
        },
      }),
    ).toEqual({ graph: { open: { "ns:a": true } } });
  });
});
