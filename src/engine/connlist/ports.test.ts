import { describe, expect, it } from "vitest";
import type { Protocol } from "../model/types.ts";
import {
  addRange,
  emptyPortSet,
  formatPortSet,
  fullPortSet,
  intersectPortSets,
  normalizeRanges,
  parsePortSet,
  type PortRange,
  type PortSet,
} from "./ports.ts";

const set = (entries: [Protocol, number, number][]): PortSet => {
  const s = emptyPortSet();
  for (const [p, a, b] of entries) addRange(s, p, a, b);
  return s;
};

describe("port-set merging (netpol-analyzer README: ranges go up and never touch)", () => {
  it.each<[string, PortRange[], PortRange[]]>([
    [
      "semanticDiff-same-topologies-new2: 8082 then 8081 become 8081-8082",
      [
        [8082, 8082],
        [8081, 8081],
      ],
      [[8081, 8082]],
    ],
    [
      "semanticDiff-same-topologies-old2: 8080 and 8081 touch",
      [
        [8080, 8080],
        [8081, 8081],
      ],
      [[8080, 8081]],
    ],
    [
      "semanticDiff-same-topologies-new1: 8080 and 9090 stay apart",
      [
        [9090, 9090],
        [8080, 8080],
      ],
      [
        [8080, 8080],
        [9090, 9090],
      ],
    ],
    [
      "overlapping endPort ranges merge",
      [
        [1000, 2000],
        [1500, 2500],
        [2501, 2600],
      ],
      [[1000, 2600]],
    ],
    [
      "a range inside another disappears",
      [
        [1, 65535],
        [80, 80],
      ],
      [[1, 65535]],
    ],
    ["an inverted range (endPort below port) is empty", [[90, 80]], []],
  ])("%s", (_, input, want) => {
    expect(normalizeRanges(input)).toEqual(want);
  });

  it("addRange keeps the set normal when ranges arrive out of order (anp_test_3_pass_traffic: TCP 1-8079,8081-65535)", () => {
    const s = set([
      ["TCP", 8081, 65535],
      ["TCP", 1, 8079],
    ]);
    expect(s.TCP).toEqual([
      [1, 8079],
      [8081, 65535],
    ]);
    addRange(s, "TCP", 8080, 8080);
    expect(s.TCP).toEqual([[1, 65535]]);
  });

  it("intersects per protocol (item 10: egress of src AND ingress of dst)", () => {
    const egress = set([
      ["TCP", 1, 65535],
      ["UDP", 53, 53],
    ]);
    const ingress = set([
      ["TCP", 8080, 8081],
      ["UDP", 1, 65535],
      ["SCTP", 7070, 7070],
    ]);
    expect(intersectPortSets(egress, ingress)).toEqual({ TCP: [[8080, 8081]], UDP: [[53, 53]], SCTP: [] });
  });
});

describe("port-set printing (netpol-analyzer README: Output format)", () => {
  it.each<[string, PortSet, string]>([
    [
      "semanticDiff-same-topologies-old2",
      set([
        ["TCP", 8080, 8081],
        ["UDP", 9090, 9090],
        ["SCTP", 7070, 7070],
      ]),
      "SCTP 7070,TCP 8080-8081,UDP 9090",
    ],
    [
      "semanticDiff-same-topologies-new1",
      set([
        ["TCP", 8080, 8080],
        ["UDP", 8080, 8080],
        ["TCP", 9090, 9090],
      ]),
      "TCP 8080,9090,UDP 8080",
    ],
    [
      "semanticDiff-same-topologies-new2",
      set([
        ["TCP", 8082, 8082],
        ["TCP", 8081, 8081],
        ["UDP", 9091, 9091],
      ]),
      "TCP 8081-8082,UDP 9091",
    ],
    [
      "netpol_named_port_test_2",
      set([
        ["SCTP", 9090, 9090],
        ["SCTP", 8956, 8956],
      ]),
      "SCTP 8956,9090",
    ],
    [
      "multiple_ingress_objects_with_different_ports",
      set([
        ["TCP", 8090, 8090],
        ["TCP", 8050, 8050],
      ]),
      "TCP 8050,8090",
    ],
    [
      "with_end_port_example: 1-65535 on all three protocols",
      set([
        ["UDP", 1, 65535],
        ["TCP", 1, 65535],
        ["SCTP", 1, 65535],
      ]),
      "All Connections",
    ],
    [
      "two whole protocols are two groups",
      set([
        ["TCP", 1, 65535],
        ["UDP", 1, 65535],
      ]),
      "TCP 1-65535,UDP 1-65535",
    ],
    ["a port entry without a number covers the protocol", set([["TCP", 1, 65535]]), "TCP 1-65535"],
    ["the empty set prints nothing (no line is listed)", emptyPortSet(), ""],
  ])("%s", (_, s, text) => {
    expect(formatPortSet(s)).toBe(text);
  });

  it.each([
    "SCTP 7070,TCP 8080-8081,UDP 9090",
    "TCP 8080,9090,UDP 8080",
    "All Connections",
    "TCP 1-8079,8081-65535",
    "SCTP 1-65535,TCP 1-65535,UDP 1-79,81-65535",
  ])("parses back what it prints: %s (README: split on commas, a protocol opens a group)", (text) => {
    expect(formatPortSet(parsePortSet(text)!)).toBe(text);
  });

  it.each(["TCP", "8080", "TCP 0", "TCP 80-70", "ICMP 8", "TCP 70000"])("rejects %j", (text) => {
    expect(parsePortSet(text)).toBeUndefined();
  });

  it("All Connections is the full set", () => {
    expect(parsePortSet("All Connections")).toEqual(fullPortSet());
  });
});
