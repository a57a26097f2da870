import { describe, expect, it } from "vitest";
import { distinguishingStarts, middleEllipsis, shortenKeeping } from "./text.ts";
import { readFileSync } from "node:fs";
import { analyzeText } from "../engine/analysis/index.ts";
import { buildGraph } from "./build.ts";
import type { GraphModel } from "./model.ts";
import { BOX, boxText, podSuffix, wrapText } from "./text.ts";
import { textWidth } from "./textWidth.ts";

describe("middleEllipsis", () => {
  it.each([
    ["frontend-7d9f8b6c5d-jmwxd", 16, "fronten…5d-jmwxd"],
    ["frontend-7d9f8b6c5d-k2p4q", 16, "fronten…5d-k2p4q"],
    ["backend-0", 16, "backend-0"],
    ["ingress-nginx-controller", 17, "ingress-…ntroller"],
  ])("%s in %i characters -> %s", (text, max, want) => {
    const got = middleEllipsis(text, max);
    expect(got).toBe(want);
    expect(got.length).toBeLessThanOrEqual(max);
  });
  it("two replicas stay distinguishable", () => {
    expect(middleEllipsis("web-5f7c9-aaaaa", 10)).not.toBe(middleEllipsis("web-5f7c9-bbbbb", 10));
  });
});

describe("names shortened among siblings keep the part that tells them apart", () => {
  const namespaces = ["payments-prod", "payments-prod-3", "payments-staging", "payments-dev", "search-prod"];
  const starts = distinguishingStarts(namespaces);
  it.each([
    ["payments-staging", 13, "payme…staging"],
    ["payments-prod-3", 12, "payme…prod-3"],
    ["payments-prod", 11, "paymen…prod"],
    ["payments-prod", 14, "payments-prod"],
    ["search-prod", 11, "search-prod"],
  ])("%s in %i characters -> %s", (name, max, want) => {
    expect(shortenKeeping(name, starts.get(name)!, max)).toBe(want);
  });
  it("every sibling stays distinct and within its width", () => {
    const short = namespaces.map((n) => shortenKeeping(n, starts.get(n)!, 11));
    expect(new Set(short).size).toBe(namespaces.length);
    expect(short.every((s) => s.length <= 11)).toBe(true);
  });
  it("pod replicas keep their own suffix; a name sharing nothing is cut in the middle", () => {
    const pods = ["frontend-7d9f8b6c5d-jmwxd", "frontend-7d9f8b6c5d-k2p4q", "cache-0"];
    const s = distinguishingStarts(pods);
    expect(pods.map((p) => shortenKeeping(p, s.get(p)!, 12))).toEqual([
      "fronte…jmwxd",
      "fronte…k2p4q",
      "cache-0",
    ]);
    expect(shortenKeeping("ingress-nginx-controller", 0, 17)).toBe(
      middleEllipsis("ingress-nginx-controller", 17),
    );
  });
});

// ---------- names whole, on real name sets ----------

const app = (name: string) => analyzeText(readFileSync(`e2e/fixtures/real-apps/${name}.yaml`, "utf8"));
const drawn = (name: string, grouping: "auto" | "pod" | "workload", budget: number): GraphModel =>
  buildGraph(app(name), {
    filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
    grouping,
    lens: "paths",
    open: {},
    budget,
  });

describe("names whole: every box holds its whole text", () => {
  it.each([
    ["online-boutique", "auto", 11],
    ["online-boutique", "pod", 30],
    ["online-boutique-netpol", "auto", 20],
    ["bookinfo", "auto", 11],
    ["bookinfo", "workload", 11],
    ["sock-shop", "pod", 30],
  ] as const)(
    "%s by %s: no line is cut or wider than its box, and nothing is left out",
    (name, grouping, budget) => {
      const g = drawn(name, grouping, budget);
      for (const n of g.nodes) {
        const t = n.text!;
        const room = t.width - BOX.left - BOX.right;
        for (const line of t.name)
          expect(textWidth(line, BOX.name, true), `${n.id}: ${line}`).toBeLessThanOrEqual(room);
        for (const line of t.sub)
          expect(textWidth(line, BOX.sub), `${n.id}: ${line}`).toBeLessThanOrEqual(room);
        expect([...t.name, ...t.sub].join(" "), n.id).not.toContain("…");
        // Wrapped lines lose only the spaces they broke at.
        const bare = (x: string | undefined) => x?.replace(/\s/g, "");
        const shown = bare(t.name.join("").replace(/^\d+× /, ""));
        expect([bare(n.label), bare(n.short)], n.id).toContain(shown);
        // Every part of the second line is there, whole (ports, IPs, namespaces are never split).
        for (const p of n.parts ?? [])
          if (p)
            expect(
              t.sub.some((l) => l.split(" · ").includes(p)),
              `${n.id}: ${p}`,
            ).toBe(true);
        expect(t.name.length + t.sub.length, n.id).toBeLessThanOrEqual(4);
      }
    },
  );

  it("Online Boutique's Services show their namespace and gRPC port whole", () => {
    const g = drawn("online-boutique", "pod", 30);
    const payment = g.nodes.find((n) => n.id === "service:default/paymentservice")!;
    expect(payment.text!.name).toEqual(["paymentservice"]);
    expect(payment.text!.sub.join(" · ")).toBe("svc · default · 50051/TCP");
    const currency = g.nodes.find((n) => n.id === "service:default/currencyservice")!;
    expect(currency.text!.name).toEqual(["currencyservice"]);
  });

  it("Online Boutique's 12 workloads fold with their Services at a laptop's budget, each name whole", () => {
    const g = drawn("online-boutique", "auto", 11);
    expect(g.level).toBe("workload");
    const names = g.nodes.filter((n) => n.kind === "group").map((n) => n.text!.name.join(""));
    expect(names).toContain("1× productcatalogservice");
    expect(names).toContain("1× recommendationservice");
  });

  it("Bookinfo's reviews pods keep their workload (v1, v2, v3) and their own suffix", () => {
    const g = drawn("bookinfo", "auto", 11);
    const reviews = g.nodes.filter((n) => n.kind === "pod" && n.label.startsWith("reviews-"));
    expect(reviews).toHaveLength(3);
    const shown = reviews.map((n) => n.text!.name.join(""));
    expect(new Set(shown).size).toBe(3);
    for (const [i, v] of ["v1", "v2", "v3"].entries()) {
      const pod = reviews.find((n) => n.label.startsWith(`reviews-${v}-`))!;
      const suffix = pod.label.slice(pod.label.lastIndexOf("-") + 1);
      expect(pod.text!.name.join(""), `pod ${i}`).toMatch(new RegExp(`^reviews-${v}.*${suffix}$`));
    }
  });
});

describe("podSuffix: the part that tells a pod from its siblings", () => {
  it.each([
    [
      "reviews-v1-7f8c9d6b5-9fqdr",
      "reviews-v1",
      ["reviews-v1-7f8c9d6b5-9fqdr", "reviews-v1-7f8c9d6b5-x2x2x"],
      "9fqdr",
    ],
    ["web-5f7c9-aaaaa", "web", ["web-5f7c9-aaaaa", "web-66d8b-bbbbb"], "5f7c9-aaaaa"],
    ["backend-1", "backend", ["backend-0", "backend-1"], "1"],
    ["node-exporter-6qvxh", "node-exporter", ["node-exporter-6qvxh"], "6qvxh"],
    ["toolbox", "toolbox", ["toolbox"], "toolbox"],
  ])("%s of %s -> %s", (name, workload, siblings, want) => {
    expect(podSuffix(name, workload, siblings)).toBe(want);
  });
});

describe("wrapText and boxText", () => {
  it("wraps after separators and loses nothing", () => {
    const lines = wrapText("recommendationservice-5f8c456796-n8sr7", 260, 15, true);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join("")).toBe("recommendationservice-5f8c456796-n8sr7");
    expect(lines[0]!.endsWith("-")).toBe(true);
  });
  it("a box is as wide as its name needs, up to the maximum, then the name wraps", () => {
    expect(boxText("cache", ["svc", "shop", "6379/TCP"]).width).toBeLessThan(BOX.maxWidth);
    const long = boxText("a-very-long-name-that-cannot-fit-on-one-line-of-a-box", ["pod"]);
    expect(long.width).toBe(BOX.maxWidth);
    expect(long.name.length).toBeGreaterThan(1);
    expect(long.name.join("")).toBe("a-very-long-name-that-cannot-fit-on-one-line-of-a-box");
    expect(long.height).toBeGreaterThan(boxText("cache", ["svc"]).height);
  });
  it("a version label shows where one app's pods differ in version and the name does not say it", () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web, version: stable}}
  template:
    metadata: {labels: {app: web, version: stable}}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-canary, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web, version: canary}}
  template:
    metadata: {labels: {app: web, version: canary}}
    spec: {containers: [{name: c, image: i}]}
`;
    const g = buildGraph(analyzeText(text), {
      filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
      grouping: "pod",
      lens: "paths",
    });
    const subOf = (re: RegExp) => g.nodes.find((n) => re.test(n.label))!.text!.sub.join(" · ");
    expect(subOf(/^web-canary-/)).not.toContain("canary");
    expect(subOf(/^web-[0-9a-z]+-[0-9a-z]+$/)).toMatch(/^stable · shop · /);
  });
});

describe("a full namespace folds its idle elements", () => {
  // Sock Shop with a nodeSelector no node meets: every pod Pending, so no flow reaches its Services.
  const pending = () =>
    analyzeText(
      readFileSync("e2e/fixtures/real-apps/sock-shop.yaml", "utf8").replaceAll(
        "beta.kubernetes.io/os: linux",
        "beta.kubernetes.io/os: windows",
      ),
    );
  it("Sock Shop (every pod Pending, one namespace): what no flow reaches folds into one element that opens", () => {
    const options = {
      filters: { hiddenNamespaces: [], port: "all" as const, onlyDrops: false },
      grouping: "auto" as const,
      lens: "paths" as const,
      budget: 11,
    };
    const g = buildGraph(pending(), { ...options, open: {} });
    const idle = g.nodes.find((n) => n.id === "group:idle:sock-shop")!;
    expect(idle).toBeDefined();
    expect(idle.toggle).toBe("idle:sock-shop");
    expect(g.nodes.length).toBeLessThanOrEqual(11);
    expect(idle.text!.sub.join(" · ")).toMatch(/sock-shop · \d+ workloads · \d+ Services/);
    const opened = buildGraph(pending(), { ...options, open: { "idle:sock-shop": true } });
    expect(opened.nodes.some((n) => n.id.startsWith("group:idle:"))).toBe(false);
    expect(opened.nodes.length).toBeGreaterThan(20);
  });
});
