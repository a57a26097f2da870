import { describe, expect, it } from "vitest";
import { sourceLink } from "./sources.ts";
import { LESSONS } from "../../../scenarios/lessons.ts";

describe("a lesson's source as a link", () => {
  it.each([
    [
      "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints (internalTrafficPolicy Local)",
      {
        href: "https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go",
        text: "kubernetes/kubernetes pkg/proxy/topology.go",
        note: "CategorizeEndpoints (internalTrafficPolicy Local)",
      },
    ],
    [
      "KEP-1669 (proxy terminating endpoints)",
      {
        href: "https://github.com/kubernetes/enhancements/issues/1669",
        text: "KEP-1669",
        note: "(proxy terminating endpoints)",
      },
    ],
    [
      "https://kubernetes.io/docs/concepts/services-networking/service-traffic-policy/",
      {
        href: "https://kubernetes.io/docs/concepts/services-networking/service-traffic-policy/",
        text: "kubernetes.io/docs/concepts/services-networking/service-traffic-policy/",
        note: "",
      },
    ],
  ])("%s", (src, link) => expect(sourceLink(src)).toEqual(link));

  it("every lesson's every source opens somewhere", () => {
    for (const l of LESSONS) for (const s of l.sources) expect(sourceLink(s).href, s).toMatch(/^https:\/\//);
  });
});
