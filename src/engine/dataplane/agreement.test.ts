/**
 * The rules and the trace cannot disagree: for every trace of every
 * scenario (every pod, node and external client to every Service port) and
 * of every conformance traffic case, the iptables rules on the node that
 * handles the packet, walked packet by packet, DNAT to exactly the trace's
 * endpoints with the trace's chances, masquerade exactly where the trace says
 * the source address is lost, and DROP or REJECT exactly where kube-proxy
 * drops or rejects in the trace.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest, type TraceResult } from "../trace/index.ts";
import { iptablesRules, walkTrace } from "./index.ts";
import type { Model } from "../model/types.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const conformance = join(root, "..", "shared", "conformance", "traffic");

interface Query {
  from: string;
  to: string;
  protocol: "TCP" | "UDP" | "SCTP";
}

function scenarioQueries(model: Model): Query[] {
  const sources = [
    ...model.pods.filter((p) => p.nodeName && p.ips.length).map((p) => `pod:${p.key}`),
    ...model.nodes.map((n) => `node:${n.name}`),
    ...model.nodes.map((n) => `external:203.0.113.10@${n.name}`),
  ];
  const out: Query[] = [];
  for (const s of model.services)
    for (const p of s.ports)
      for (const from of sources) out.push({ from, to: `service:${s.key}:${p.port}`, protocol: p.protocol });
  return out;
}

interface Case {
  name: string;
  file: string;
  queries: (model: Model) => Query[];
}

function cases(): Case[] {
  const out: Case[] = [];
  const scen = join(root, "scenarios");
  for (const d of readdirSync(scen).sort()) {
    const file = join(scen, d, "manifests.yaml");
    if (existsSync(file)) out.push({ name: `scenario ${d}`, file, queries: scenarioQueries });
  }
  if (existsSync(conformance)) {
    for (const d of readdirSync(conformance).sort()) {
      const file = join(conformance, d, "manifests.yaml");
      const expect = join(conformance, d, "expect.json");
      if (!existsSync(file) || !existsSync(expect)) continue;
      const spec = JSON.parse(readFileSync(expect, "utf8")) as {
        queries?: { from: Record<string, string>; to: Record<string, string | number> }[];
      };
      const qs = (spec.queries ?? []).map((q) => {
        const from = q.from.pod
          ? `pod:${q.from.pod}`
          : q.from.external
            ? `external:${q.from.external}@${q.from.node}`
            : `node:${q.from.node}`;
        const to = q.to.service
          ? `service:${q.to.service}:${q.to.port}`
          : q.to.pod
            ? `pod:${q.to.pod}:${q.to.port}`
            : `ip:${q.to.ip}:${q.to.port}`;
        return { from, to, protocol: (q.to.protocol as Query["protocol"]) ?? "TCP" };
      });
      out.push({
        name: `conformance traffic/${d}`,
        file,
        queries: (model) => [...qs, ...scenarioQueries(model)],
      });
    }
  }
  return out;
}

/** Compares the walk on the handling node with the trace; returns the disagreements. */
function disagreements(model: Model, trace: TraceResult, rules: ReturnType<typeof iptablesRules>): string[] {
  const walk = walkTrace(model, rules, trace);
  const bad: string[] = [];
  if (!walk.packet) return [`no packet: ${walk.note}`];
  const chance = (v: number) => Math.round(v * 1e6) / 1e6;
  const kp = trace.kubeProxy;
  if (!kp) {
    // Dropped before kube-proxy's choice (loadBalancerSourceRanges): the firewall DROP.
    if (!walk.branches.every((b) => b.verdict === "drop"))
      bad.push(`trace stops before kube-proxy (${trace.reason}) but rules give ${walk.note}`);
    return bad;
  }
  if (kp.action !== "forward") {
    const want = kp.action === "reject" ? "reject" : "drop";
    if (!walk.branches.every((b) => b.verdict === want))
      bad.push(`trace: kube-proxy ${kp.action}; rules: ${walk.note}`);
    return bad;
  }
  const byEndpoint = new Map<string, { p: number; masq: Set<boolean> }>();
  for (const b of walk.branches) {
    if (b.verdict !== "accept" || !b.endpoint) {
      bad.push(
        `branch ${b.verdict} without DNAT (${b.probability}): ${b.steps.map((s) => s.line).join(" | ")}`,
      );
      continue;
    }
    const e = byEndpoint.get(b.endpoint) ?? { p: 0, masq: new Set<boolean>() };
    e.p += b.probability;
    e.masq.add(b.masquerade);
    byEndpoint.set(b.endpoint, e);
  }
  const traced = new Map(
    trace.endpoints.map((e) => [e.ip.includes(":") ? `[${e.ip}]:${e.port}` : `${e.ip}:${e.port}`, e]),
  );
  const got = [...byEndpoint.keys()].sort();
  const want = [...traced.keys()].sort();
  if (got.join(",") !== want.join(",")) bad.push(`endpoints: rules [${got}] trace [${want}]`);
  for (const [k, e] of byEndpoint) {
    const t = traced.get(k);
    if (!t) continue;
    if (chance(e.p) !== chance(t.probability))
      bad.push(`${k}: chance ${e.p} in the rules, ${t.probability} in the trace`);
    if (e.masq.size !== 1 || e.masq.has(t.sourceIPPreserved))
      bad.push(
        `${k}: masquerade ${[...e.masq]} in the rules, sourceIPPreserved ${t.sourceIPPreserved} in the trace`,
      );
  }
  return bad;
}

describe("iptables rules agree with the trace (same engine decisions)", () => {
  const all = cases();
  it("finds the scenarios and the conformance traffic cases", () => {
    expect(all.some((c) => c.name.startsWith("scenario"))).toBe(true);
  });
  for (const c of all) {
    it(c.name, () => {
      const model = loadModel([{ name: c.file, text: readFileSync(c.file, "utf8") }]);
      const index = buildProxyIndex(model);
      const rulesByNode = new Map<string, ReturnType<typeof iptablesRules>>();
      let walked = 0;
      const problems: string[] = [];
      for (const q of c.queries(model)) {
        const trace = traceRequest(model, index, q.from, q.to, q.protocol);
        if (trace.error || !trace.handledBy) continue;
        let rules = rulesByNode.get(trace.handledBy);
        if (!rules) rulesByNode.set(trace.handledBy, (rules = iptablesRules(model, index, trace.handledBy)));
        walked++;
        for (const d of disagreements(model, trace, rules)) problems.push(`${q.from} -> ${q.to}: ${d}`);
      }
      expect(problems).toEqual([]);
      // A scenario with Services has traces that reach kube-proxy.
      if (model.services.some((s) => !s.headless && s.type !== "ExternalName"))
        expect(walked).toBeGreaterThan(0);
    });
  }
});

describe("the walk's note when no rule takes the packet", () => {
  const text = `apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}`;
  const model = loadModel([{ name: "w.yaml", text }]);
  const index = buildProxyIndex(model);
  const walk = (from: string, to: string) =>
    walkTrace(model, iptablesRules(model, index, "n1"), traceRequest(model, index, from, to, "TCP"));

  it("an outside client calling a ClusterIP-only Service is told why, not that it goes to a pod directly", () => {
    expect(walk("external:203.0.113.9@n1", "service:default/web:80").note).toMatch(
      /^no kube-proxy rule takes this packet: dropped: Service default\/web is type ClusterIP/,
    );
  });

  it("a pod addressed by its own IP goes there with no kube-proxy rule", () => {
    expect(walk("node:n1", "pod:default/web:80").note).toBe(
      "this packet goes to a pod or an address directly: no kube-proxy rule rewrites it",
    );
  });
});
