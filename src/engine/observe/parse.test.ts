/**
 * Reading flow records. Sources of the field names:
 * - Hubble: cilium/cilium api/v1/flow/flow.proto (Flow: verdict 2,
 *   drop_reason_desc 25, IP 5, l4 6, source 8, destination 9, Type 10,
 *   l7 15, reply 16 (deprecated), traffic_direction 22, is_reply 26,
 *   egress_allowed_by/ingress_denied_by; Endpoint: namespace, labels,
 *   pod_name, workloads; Layer4 oneof TCP/UDP/ICMPv4/ICMPv6/SCTP), as
 *   `hubble observe -o json` prints them (protojson, proto names), bare or in
 *   GetFlowsResponse's {"flow": ...}.
 * - Calico Enterprise/Cloud: docs "Flow log data types" (source_name,
 *   source_name_aggr, source_namespace, source_type wep|ns|net,
 *   source_labels {labels: [...]}, dest_*, dest_port, proto, action
 *   allow|deny, reporter src|dst, num_flows, policies
 *   `<index>|<tier>|<name>|<action>|<rule>`, names `NS/knp.default.NAME`).
 * - Calico Open Source: projectcalico/calico goldmane/proto/api.proto (Flow
 *   {Key: FlowKey, source_labels, num_connections_started}; actions
 *   Allow|Deny, reporters Src|Dst, EndpointType WorkloadEndpoint|Network).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFlows } from "./parse.ts";
import type { FlowSet, ObservedFlow } from "./types.ts";

const one = (name: string, text: string): FlowSet => parseFlows([{ name, text }]);
const only = (name: string, text: string): ObservedFlow => {
  const s = one(name, text);
  expect(s.errors).toEqual([]);
  expect(s.skipped).toEqual([]);
  expect(s.flows).toHaveLength(1);
  return s.flows[0]!;
};

const hubble = (f: Record<string, unknown>) => JSON.stringify(f);
const ep = (ns: string, pod: string, labels: string[] = []) => ({ namespace: ns, pod_name: pod, labels });
const tcp = (port: number) => ({ TCP: { source_port: 40000, destination_port: port, flags: { SYN: true } } });

describe("Hubble flows (flow.proto, hubble observe -o json)", () => {
  const base = {
    verdict: "FORWARDED",
    IP: { source: "10.0.1.5", destination: "10.0.2.6", ipVersion: "IPv4" },
    l4: tcp(8080),
    source: ep("shop", "frontend-7d9c8f6b5-x2x9q", [
      "k8s:app=frontend",
      "k8s:io.kubernetes.pod.namespace=shop",
      "k8s:io.cilium.k8s.policy.serviceaccount=default",
    ]),
    destination: {
      ...ep("shop", "backend-5f6d4c7b9-m2p7w", ["k8s:app=backend"]),
      workloads: [{ name: "backend", kind: "Deployment" }],
    },
    Type: "L3_L4",
    traffic_direction: "INGRESS",
    is_reply: false,
  };

  it("reads a bare flow: ends, labels without the k8s: source or Cilium's own labels, workloads, port, reporter", () => {
    const f = only("h.jsonl", hubble(base));
    expect(f).toMatchObject({
      format: "hubble",
      line: 1,
      port: 8080,
      protocol: "TCP",
      verdict: "forwarded",
      count: 1,
      reporter: "dst",
      src: {
        namespace: "shop",
        name: "frontend-7d9c8f6b5-x2x9q",
        ip: "10.0.1.5",
        text: "shop/frontend-7d9c8f6b5-x2x9q",
      },
      dst: { workloads: [{ name: "backend", kind: "Deployment" }], ip: "10.0.2.6" },
    });
    expect({ ...f.src.labels }).toEqual({ app: "frontend" });
  });

  it.each([
    [
      "GetFlowsResponse's wrapper",
      { flow: base, node_name: "kind-worker", time: "2026-05-04T10:00:00Z" },
      "forwarded",
    ],
    [
      "lowerCamelCase fields",
      {
        ...base,
        IP: undefined,
        ip: { source: "10.0.1.5", destination: "10.0.2.6" },
        l4: { TCP: { destinationPort: 8080 } },
        trafficDirection: "EGRESS",
        traffic_direction: undefined,
      },
      "forwarded",
    ],
    ["a numeric verdict (2 = DROPPED)", { ...base, verdict: 2 }, "dropped"],
    ["REDIRECTED (to the L7 proxy) is forwarded", { ...base, verdict: "REDIRECTED" }, "forwarded"],
    ["AUDIT (policy audit mode) is forwarded", { ...base, verdict: "AUDIT" }, "forwarded"],
    ["UDP", { ...base, l4: { UDP: { source_port: 5353, destination_port: 53 } } }, "forwarded"],
  ])("reads %s", (_, rec, verdict) => {
    const f = only("h.jsonl", JSON.stringify(rec));
    expect(f.verdict).toBe(verdict);
  });

  it("keeps drop_reason_desc and the policy that Hubble names (ingress_denied_by)", () => {
    const f = only(
      "h.jsonl",
      hubble({
        ...base,
        verdict: "DROPPED",
        drop_reason_desc: "POLICY_DENIED",
        ingress_denied_by: [{ name: "quarantine", namespace: "shop", kind: "CiliumNetworkPolicy" }],
      }),
    );
    expect(f).toMatchObject({
      verdict: "dropped",
      dropReason: "POLICY_DENIED",
      policy: { name: "quarantine", kind: "CiliumNetworkPolicy" },
    });
  });

  it.each([
    ["is_reply", { ...base, is_reply: true }, /a reply/],
    ["the deprecated reply", { ...base, reply: true, is_reply: undefined }, /a reply/],
    ["an L7 record", { ...base, Type: "L7", l7: { type: "REQUEST", http: { method: "GET" } } }, /L7 record/],
    ["ICMP", { ...base, l4: { ICMPv4: { type: 8 } } }, /ICMP has no port/],
    ["TRACED", { ...base, verdict: "TRACED" }, /verdict TRACED/],
    ["no l4", { ...base, l4: undefined }, /no TCP, UDP or SCTP/],
    ["lost events", { lost_events: { num_events_lost: 3 } }, /not a flow \(lost_events\)/],
  ])("skips %s, saying why", (_, rec, why) => {
    const s = one("h.jsonl", JSON.stringify(rec));
    expect(s.flows).toEqual([]);
    expect(s.errors).toEqual([]);
    expect(s.skipped).toHaveLength(1);
    expect(s.skipped[0]!.reason).toMatch(why);
  });

  it("an end with only a reserved identity says it is outside the pods", () => {
    const f = only(
      "h.jsonl",
      hubble({
        ...base,
        source: { identity: 2, labels: ["reserved:world"] },
        IP: { source: "203.0.113.7", destination: "10.0.2.6" },
      }),
    );
    expect(f.src).toMatchObject({ ip: "203.0.113.7", text: "reserved:world 203.0.113.7" });
    expect(f.src.outside).toMatch(/reserved:world/);
  });
});

describe("Calico flow logs (Flow log data types; goldmane api.proto)", () => {
  const enterprise = {
    source_ip: null,
    source_name: "-",
    source_name_aggr: "access-6b687c8dcb-*",
    source_namespace: "policy-demo",
    source_type: "wep",
    source_labels: { labels: ["pod-template-hash=6b687c8dcb", "app=access"] },
    dest_ip: "192.168.138.79",
    dest_name: "nginx-86c57db685-h6792",
    dest_name_aggr: "nginx-86c57db685-*",
    dest_namespace: "policy-demo",
    dest_port: 80,
    dest_type: "wep",
    dest_labels: { labels: ["pod-template-hash=86c57db685", "app=nginx"] },
    proto: "tcp",
    action: "allow",
    reporter: "dst",
    policies: {
      all_policies: [
        "0|tier1|ns1/tier1.policy1|pass|3",
        "1|default|policy-demo/knp.default.access-nginx|allow|2",
      ],
    },
    num_flows: 7,
  };

  it("reads an Enterprise record: aggregated names as prefixes, labels, count, reporter, the deciding policy", () => {
    const f = only("c.jsonl", JSON.stringify(enterprise));
    expect(f).toMatchObject({
      format: "calico",
      port: 80,
      protocol: "TCP",
      verdict: "forwarded",
      count: 7,
      reporter: "dst",
      src: { namespace: "policy-demo", name: "access-6b687c8dcb-", aggregated: true },
      dst: { name: "nginx-86c57db685-h6792", ip: "192.168.138.79" },
      policy: { kind: "NetworkPolicy", namespace: "policy-demo", name: "access-nginx" },
    });
    expect({ ...f.src.labels }).toEqual({ "pod-template-hash": "6b687c8dcb", app: "access" });
  });

  it.each([
    [
      "an Elasticsearch hit (_source)",
      { _source: { ...enterprise, action: "deny" } },
      { verdict: "dropped" },
    ],
    ["a protocol number (17 = UDP)", { ...enterprise, proto: "17" }, { protocol: "UDP" }],
    [
      "a GlobalNetworkPolicy deny",
      {
        ...enterprise,
        action: "deny",
        policies: { all_policies: ["0|security|security.quarantine|deny|0"] },
      },
      { policy: { kind: "GlobalNetworkPolicy", name: "security.quarantine", tier: "security" } },
    ],
    [
      "a network source (net, pub)",
      { ...enterprise, source_type: "net", source_name_aggr: "pub", source_namespace: "-" },
      { src: { text: "pub (net)" } },
    ],
    [
      "goldmane's Flow with its Key",
      {
        Key: {
          source_name: "access-6b687c8dcb-",
          source_namespace: "policy-demo",
          source_type: "WorkloadEndpoint",
          dest_name: "nginx-86c57db685-",
          dest_namespace: "policy-demo",
          dest_type: "WorkloadEndpoint",
          dest_port: 80,
          proto: "tcp",
          reporter: "Dst",
          action: "Deny",
          policies: {
            enforced_policies: [
              {
                kind: "CalicoNetworkPolicy",
                namespace: "policy-demo",
                name: "default.deny-all",
                tier: "default",
                action: "Deny",
              },
            ],
          },
        },
        source_labels: ["app=access"],
        num_connections_started: 4,
      },
      {
        verdict: "dropped",
        reporter: "dst",
        count: 4,
        src: { name: "access-6b687c8dcb-", aggregated: true },
        policy: { kind: "CalicoNetworkPolicy", name: "default.deny-all" },
      },
    ],
  ])("reads %s", (_, rec, want) => {
    const f = only("c.jsonl", JSON.stringify(rec));
    expect(f).toMatchObject(want);
  });

  it("the namespace's profile (__PROFILE__) is no policy: nothing is named", () => {
    const rec = {
      ...enterprise,
      policies: { all_policies: ["0|__PROFILE__|__PROFILE__.kns.policy-demo|allow|0"] },
    };
    expect(only("c.jsonl", JSON.stringify(rec)).policy).toBeUndefined();
  });

  it.each([
    ["ICMP", { ...enterprise, proto: "icmp" }, /ICMP/],
    ["a port aggregated away", { ...enterprise, dest_port: null }, /no destination port/],
  ])("skips %s", (_, rec, why) => {
    const s = one("c.jsonl", JSON.stringify(rec));
    expect(s.skipped[0]!.reason).toMatch(why);
  });

  it("an action that is neither allow nor deny is skipped; a missing one is an error", () => {
    expect(one("c.jsonl", JSON.stringify({ ...enterprise, action: "pass" })).skipped).toHaveLength(1);
    expect(one("c.jsonl", JSON.stringify({ ...enterprise, action: undefined })).errors[0]!.message).toMatch(
      /without an action/,
    );
  });
});

describe("ktl's CSV", () => {
  it.each([
    [
      "a header in its own order",
      "destination,source,port,verdict\nshop/backend,shop/frontend,8080,allowed\n",
    ],
    ["no header", "shop/frontend,shop/backend,8080,TCP,forwarded,1\n"],
    ["quoted cells and a comment", '# seen on Monday\n"shop/frontend","shop/backend",8080,tcp,"forwarded"\n'],
  ])("reads %s", (_, text) => {
    const f = only("f.csv", text);
    expect(f).toMatchObject({
      src: { namespace: "shop", name: "frontend" },
      dst: { namespace: "shop", name: "backend" },
      port: 8080,
      protocol: "TCP",
      verdict: "forwarded",
      count: 1,
    });
  });

  it.each([
    ["10.0.2.6", { ip: "10.0.2.6" }],
    ["[fd00::6]", { ip: "fd00::6" }],
    ["service:shop/backend", { service: "shop/backend", namespace: "shop" }],
    ["shop/StatefulSet/cache", { namespace: "shop", workloads: [{ kind: "StatefulSet", name: "cache" }] }],
    ["shop/frontend-*", { namespace: "shop", name: "frontend-", aggregated: true }],
  ])("reads the end %s", (end, want) => {
    expect(only("f.csv", `shop/x,${end},80,UDP,dropped,3\n`).dst).toMatchObject(want);
  });

  it.each([
    ["shop/a,shop/b,http,TCP,forwarded", /port "http"/],
    ["shop/a,shop/b,80,ICMP,forwarded", /protocol "ICMP"/],
    ["shop/a,shop/b,80,TCP,maybe", /verdict "maybe"/],
    ["shop/a,shop/b,80,TCP,forwarded,0", /count "0"/],
    ["shop,shop/b,80,TCP,forwarded", /source: "shop" is not/],
    ['"shop/a,shop/b,80', /not closed/],
  ])("an unreadable row is an error with its line: %s", (row, why) => {
    const s = one("f.csv", `source,destination,port,protocol,verdict,count\n${row}\n`);
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0]).toMatchObject({ file: "f.csv", line: 2 });
    expect(s.errors[0]!.message).toMatch(why);
  });
});

describe("JSON records and their lines", () => {
  it("a JSON array's elements keep their own lines; a bad element is an error at its line", () => {
    const text = `[\n  {"verdict": "FORWARDED", "l4": {"TCP": {"destination_port": 80}}, "source": {"namespace": "a", "pod_name": "x"}, "destination": {"namespace": "a", "pod_name": "y"}},\n  {"verdict": "DROPPED",\n   "l4": {"TCP": {"destination_port": 81}}, "source": {"namespace": "a", "pod_name": "x"}, "destination": {"namespace": "a", "pod_name": "y"}},\n  {"verdict": nope}\n]\n`;
    const s = one("export.json", text);
    expect(s.flows.map((f) => [f.line, f.port])).toEqual([
      [2, 80],
      [3, 81],
    ]);
    expect(s.errors).toEqual([
      { file: "export.json", line: 5, message: expect.stringMatching(/not valid JSON/) },
    ]);
  });

  it("a JSON line that is not JSON, or neither format, is an error naming its line", () => {
    const s = one(
      "h.jsonl",
      `${hubble({ verdict: "FORWARDED", l4: tcp(80), source: ep("a", "x"), destination: ep("a", "y") })}\nnot json\n{"hello": 1}\n`,
    );
    expect(s.flows).toHaveLength(1);
    expect(s.errors.map((e) => [e.line, e.message.slice(0, 20)])).toEqual([
      [2, "not valid JSON: Unex"],
      [3, "neither a Hubble flo"],
    ]);
  });
});

describe("the sample flow files", () => {
  const dir = join(import.meta.dirname, "../../../scenarios/fixtures/observed-vs-predicted");
  it.each([
    ["hubble-flows.jsonl", { hubble: 31 }, 4],
    ["calico-flows.jsonl", { calico: 12 }, 1],
    ["flows.csv", { csv: 9 }, 0],
  ])("%s reads without an error", (name, formats, skipped) => {
    const s = parseFlows([{ name, text: readFileSync(join(dir, name), "utf8") }]);
    expect(s.errors).toEqual([]);
    expect(s.formats).toEqual(formats);
    expect(s.skipped).toHaveLength(skipped);
  });
});
