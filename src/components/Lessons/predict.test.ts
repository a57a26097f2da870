import { describe, expect, it } from "vitest";
import {
  backendOptions,
  checkKey,
  judge,
  outcomeOf,
  predictionKey,
  questionKey,
  verdictsHidden,
} from "./predict.ts";
import type { Flow, RouterView } from "../../engine/analysis/index.ts";
import { LESSONS, lessonById } from "../../../scenarios/lessons.ts";

const ep = (to: string, traceTo: string): Flow =>
  ({ id: to, kind: "endpoint", from: ["service:shop/web"], to, port: 80, protocol: "TCP", traceTo }) as Flow;

describe("predict, then reveal", () => {
  it("hides verdicts only in an unrevealed lesson", () => {
    expect(verdictsHidden({ scenarioId: "05-allow-one-caller-after-default-deny", answerShown: false })).toBe(
      true,
    );
    expect(verdictsHidden({ scenarioId: "05-allow-one-caller-after-default-deny", answerShown: true })).toBe(
      false,
    );
    expect(verdictsHidden({ scenarioId: "01-trace-a-shop-across-zones", answerShown: false })).toBe(false);
    expect(verdictsHidden({ scenarioId: undefined, answerShown: false })).toBe(false);
  });

  it("offers the pods behind the asked Service port, when there is a choice", () => {
    const flows = [
      ep("pod:shop/web-b", "service:shop/web:80"),
      ep("pod:shop/web-a", "service:shop/web:80"),
      ep("pod:shop/web-a", "service:shop/web:80"),
      ep("pod:shop/other", "service:shop/web:8080"),
    ];
    const a = { flows, routers: [] };
    expect(backendOptions(a, "service:shop/web:80")).toEqual(["pod:shop/web-a", "pod:shop/web-b"]);
    expect(backendOptions(a, "service:shop/web:8080")).toEqual([]);
    expect(backendOptions(a, "pod:shop/web-a:80")).toEqual([]);
    expect(backendOptions(undefined, "service:shop/web:80")).toEqual([]);
  });

  it("offers the Services an L7 router's routes send to, for a question to the router", () => {
    const router = { id: "gateway:shop/gw", traceTo: "gateway:shop/gw:80" } as RouterView;
    const route = (to: string, from = router.id): Flow =>
      ({ id: `route:${to}`, kind: "route", from: [from], to, port: 8080, protocol: "TCP" }) as Flow;
    const a = {
      flows: [route("service:shop/web"), route("service:shop/api"), route("service:x/y", "gateway:x/other")],
      routers: [router],
    };
    expect(backendOptions(a, "gateway:shop/gw:80")).toEqual(["service:shop/api", "service:shop/web"]);
    expect(backendOptions(a, "gateway:shop/gw:8443")).toEqual([]);
  });

  const trace = {
    verdict: "partial" as const,
    endpoints: [
      {
        ip: "10.0.0.1",
        port: 80,
        pod: "shop/web-a",
        probability: 0.5,
        verdict: "allow" as const,
        reason: "",
      },
      { ip: "10.0.0.2", port: 80, pod: "shop/web-b", probability: 0.5, verdict: "drop" as const, reason: "" },
      { ip: "10.0.0.3", port: 80, pod: "shop/web-c", probability: 0, verdict: "allow" as const, reason: "" },
    ],
  };

  it("judges against the engine's trace: the verdict, and the backend among the pods that receive it", () => {
    const o = outcomeOf(trace);
    expect(o).toEqual({ verdict: "partial", receiving: ["pod:shop/web-a"] });
    expect(judge({ verdict: "partial", backend: "pod:shop/web-a" }, o)).toEqual({
      verdict: { said: "partial", is: "partial", right: true },
      backend: { said: "pod:shop/web-a", receiving: ["pod:shop/web-a"], right: true },
      right: true,
    });
    // Dropped by policy, or never chosen (probability 0): not a receiving backend.
    expect(judge({ verdict: "partial", backend: "pod:shop/web-b" }, o).right).toBe(false);
    expect(judge({ verdict: "allow", backend: "pod:shop/web-c" }, o).backend?.right).toBe(false);
    expect(judge({ verdict: "allow" }, o)).toEqual({
      verdict: { said: "allow", is: "partial", right: false },
      right: false,
    });
    expect(judge(undefined, o).verdict).toEqual({ said: undefined, is: "partial", right: false });
  });

  it("an HTTP question is judged on its status too: a 403 is not 'allowed', and a status must be predicted", () => {
    const refused = outcomeOf({ verdict: "drop", httpStatus: 403, endpoints: [] });
    expect(judge({ verdict: "drop", status: 403 }, refused, true).right).toBe(true);
    expect(judge({ verdict: "drop", status: "none" }, refused, true).right).toBe(false);
    expect(judge({ verdict: "allow", status: 200 }, refused, true).right).toBe(false);
    expect(judge({ verdict: "drop" }, refused, true)).toMatchObject({
      status: { said: undefined, is: 403, right: false },
      right: false,
    });
    // Dropped below HTTP (kube-proxy, NetworkPolicy): "no HTTP answer".
    const silent = outcomeOf({ verdict: "drop", endpoints: [] });
    expect(judge({ verdict: "drop", status: "none" }, silent, true).right).toBe(true);
    expect(judge({ verdict: "drop", status: 503 }, silent, true).right).toBe(false);
  });

  it("behind a router, the Services it chose receive the request", () => {
    const o = outcomeOf({
      verdict: "allow",
      httpStatus: 200,
      endpoints: [{ pod: "shop/api-0", verdict: "allow", probability: 1 }],
      backends: [{ service: "shop/api", weight: 1 }],
    });
    expect(o.receiving).toEqual(["pod:shop/api-0", "service:shop/api"]);
    // The playground's view names the Service by its graph id already.
    expect(
      outcomeOf({ verdict: "allow", endpoints: [], backends: [{ service: "service:shop/api", weight: 1 }] })
        .receiving,
    ).toEqual(["service:shop/api"]);
    expect(judge({ verdict: "allow", status: 200, backend: "service:shop/api" }, o, true).right).toBe(true);
    expect(judge({ verdict: "allow", status: 200, backend: "service:shop/web" }, o, true).right).toBe(false);
  });
});

describe("a prediction's key: the lesson and the whole question", () => {
  const q = { from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" as const };
  it("tells apart protocol, port, method, path, every header (value case included) and the profile", () => {
    const keys = [
      questionKey(q),
      questionKey({ ...q, protocol: "UDP" }),
      questionKey({ ...q, to: "service:a/c:8080" }),
      questionKey({ ...q, http: { method: "GET", path: "/", headers: {} } }),
      questionKey({ ...q, http: { method: "POST", path: "/", headers: {} } }),
      questionKey({ ...q, http: { method: "GET", path: "/x", headers: {} } }),
      questionKey({ ...q, http: { method: "GET", path: "/", headers: { "end-user": "jason" } } }),
      questionKey({ ...q, http: { method: "GET", path: "/", headers: { "end-user": "Jason" } } }),
      questionKey(q, "calico"),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    // Header order is not part of the question.
    expect(questionKey({ ...q, http: { method: "GET", path: "/", headers: { a: "1", b: "2" } } })).toBe(
      questionKey({ ...q, http: { method: "GET", path: "/", headers: { b: "2", a: "1" } } }),
    );
  });

  it("the same question in two lessons is two predictions", () =>
    expect(predictionKey("17-x", q)).not.toBe(predictionKey("31-y", q)));

  it("every lesson's questions have keys of their own (lesson 17's GET and POST, lesson 31's jason, Jason and no header, lesson 19's profiles)", () => {
    const all = LESSONS.flatMap((l) => l.checks.map((c) => checkKey(l.id, c)));
    expect(new Set(all).size).toBe(all.length);
    const l17 = lessonById("17-refuse-a-path-with-a-cilium-l7-rule")!;
    expect(new Set(l17.checks.map((c) => checkKey(l17.id, c))).size).toBe(l17.checks.length);
  });
});
