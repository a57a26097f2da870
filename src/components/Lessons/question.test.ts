import { describe, expect, it } from "vitest";
import { questionLabel, questionOf } from "./question.ts";

describe("a lesson check as a question", () => {
  it.each([
    [
      { from: "pod:a/b", to: "service:a/c:80", verdict: "allow" as const },
      { from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" },
    ],
    [
      {
        from: "pod:a/b",
        to: "ingress:a/i:80",
        verdict: "drop" as const,
        http: "GET /x",
        headers: ["Host: A.example", "X-A: 1"],
      },
      {
        from: "pod:a/b",
        to: "ingress:a/i:80",
        protocol: "TCP",
        http: { method: "GET", path: "/x", headers: { host: "A.example", "x-a": "1" } },
      },
    ],
  ])("%j", (c, q) => expect(questionOf(c)).toEqual(q));
  it("labels an HTTP check with its request", () =>
    expect(
      questionLabel({
        from: "external:1.2.3.4@n",
        to: "gateway:a/g:80",
        verdict: "allow",
        http: "GET /",
        headers: ["Host: h"],
      }),
    ).toBe("1.2.3.4@n → gateway:a/g:80 · GET / [Host: h]"));
});
