import { describe, expect, it } from "vitest";
import {
  asPodKey,
  externalAtNode,
  graphEndpointId,
  podId,
  podKey,
  portSlot,
  specIndex,
  workloadKey,
  type EndpointId,
  type PodKey,
  type PortSlot,
  type SpecIndex,
  type WorkloadKey,
} from "./ids.ts";
import { makeService, modelOf } from "../testing/fixtures.ts";

/**
 * What the type-check rejects (`npm run typecheck` compiles this file: an
 * `@ts-expect-error` line that stops being an error fails it). Never called:
 * the brands exist only for the compiler.
 */
export function rejectedByTheTypeCheck(key: PodKey, w: WorkloadKey, id: EndpointId, i: SpecIndex): void {
  const slotOf = (s: PortSlot) => s;
  const lookUp = (k: PodKey) => k;
  // @ts-expect-error a raw number is not a slot among the valid ports
  slotOf(2);
  // @ts-expect-error an index into spec.ports is not a slot (the hostile-input port-index crash)
  slotOf(i);
  // @ts-expect-error a raw string is not a pod key
  lookUp("default/web");
  // @ts-expect-error a workload key is not a pod key
  lookUp(w);
  // @ts-expect-error an endpoint id ("pod:NS/NAME") is not a pod key
  lookUp(id);
  // @ts-expect-error a pod key is not an endpoint id
  const _id: EndpointId = key;
  // @ts-expect-error a raw string is not an endpoint id
  podId("default/web");
  // @ts-expect-error a pod key is not a workload key
  const _w: WorkloadKey = key;
  // Reading one as its base type is free.
  const _n: number = i;
  const _s: string = key;
  void [_id, _w, _n, _s];
}

describe("branded ids are the plain values at run time", () => {
  it.each([
    ["podKey", podKey("shop", "web-1"), "shop/web-1"],
    ["asPodKey", asPodKey("shop/web-1"), "shop/web-1"],
    [
      "workloadKey",
      workloadKey({ namespace: "shop", kind: "Deployment", name: "web" }),
      "shop/Deployment/web",
    ],
    ["podId", podId(podKey("shop", "web-1")), "pod:shop/web-1"],
    ["externalAtNode", externalAtNode("203.0.113.10", "node-a"), "external:203.0.113.10@node-a"],
    ["graphEndpointId", graphEndpointId(externalAtNode("203.0.113.10", "node-a")), "external:203.0.113.10"],
    ["specIndex", specIndex(3), 3],
    ["portSlot", portSlot(2), 2],
  ])("%s", (_name, value, plain) => {
    expect(value).toBe(plain);
    expect(JSON.stringify(value)).toBe(JSON.stringify(plain));
  });

  it("a Service port keeps its spec.ports index and its valid-port slot apart (KTL501 drops port 0)", () => {
    const model = modelOf([
      makeService("shop", "web", {
        selector: { app: "web" },
        ports: [
          { name: "bad", port: 0 },
          { name: "http", port: 80 },
        ],
      }),
    ]);
    const [http] = model.services[0]!.ports;
    expect(http).toMatchObject({ name: "http", index: 1, slot: 0 });
  });
});
