import { describe, expect, it } from "vitest";
import { distinguishingStarts, middleEllipsis, shortenKeeping } from "./text.ts";

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
