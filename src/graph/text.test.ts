import { describe, expect, it } from "vitest";
import { middleEllipsis } from "./text.ts";

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
