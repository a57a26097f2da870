/**
 * The class path (buildPolicyIndex, classMatrix, reachSummary, podMatrix) is
 * built for scale: selectors resolved over a namespace and label index, rows
 * shared between classes with the same policies, pairs counted per group of
 * shared rows. Whatever the shortcuts, it must agree with the exact per-pair
 * path (explainPair) on every pair, which follows the API's rules directly
 * (networking/v1 NetworkPolicySpec; upstream test/e2e/network/netpol).
 * Random clusters (fast-check, fixed seed) mix namespaces, label sets,
 * hostNetwork pods, named ports, IP ranges split by ipBlock and except, and
 * every selector form.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { buildPolicyIndex, loadModel } from "../index.ts";
import { classMatrix, explainPair, pairAllowed, podMatrix, reachSummary } from "./index.ts";
import { ipv4Number } from "../model/ip.ts";
import { setForm } from "./bitset.ts";
import { parseIPSloppy, parseIPv4 } from "../model/ip.ts";
import type { Protocol } from "../model/types.ts";
import { rng } from "../testing/random.ts";

const APPS = ["a", "b", "c"];
const TIERS = ["web", "api", "db"];
const PORTS = [
  "{name: http, containerPort: 80}",
  "{name: http, containerPort: 8080}",
  "{name: metrics, containerPort: 9090}",
  "{name: dns, containerPort: 53, protocol: UDP}",
];
const CIDRS = ["10.1.0.0/16", "10.1.1.0/24", "10.2.0.0/16", "0.0.0.0/0", "192.168.1.0/24"];

function selector(r: ReturnType<typeof rng>): string {
  switch (r.int(6)) {
    case 0:
      return "{}";
    case 1:
      return `{matchLabels: {app: ${r.pick(APPS)}}}`;
    case 2:
      return `{matchLabels: {app: ${r.pick(APPS)}, tier: ${r.pick(TIERS)}}}`;
    case 3:
      return `{matchExpressions: [{key: tier, operator: In, values: [${r.pick(TIERS)}, ${r.pick(TIERS)}]}]}`;
    case 4:
      return `{matchExpressions: [{key: app, operator: ${r.pick(["NotIn", "Exists", "DoesNotExist"])}, values: [${r.pick(APPS)}]}]}`;
    default:
      return `{matchExpressions: [{key: tier, operator: Exists}, {key: app, operator: In, values: [${r.pick(APPS)}]}]}`;
  }
}

function nsSelector(r: ReturnType<typeof rng>): string {
  switch (r.int(4)) {
    case 0:
      return "{}";
    case 1:
      return `{matchLabels: {team: t${r.int(2)}}}`;
    case 2:
      return `{matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [ns${r.int(4)}, ns${r.int(4)}]}]}`;
    default:
      return `{matchExpressions: [{key: env, operator: NotIn, values: [dev]}]}`;
  }
}

function peer(r: ReturnType<typeof rng>): string {
  switch (r.int(5)) {
    case 0:
      return `{podSelector: ${selector(r)}}`;
    case 1:
      return `{namespaceSelector: ${nsSelector(r)}}`;
    case 2:
      return `{namespaceSelector: ${nsSelector(r)}, podSelector: ${selector(r)}}`;
    case 3:
      return `{ipBlock: {cidr: ${r.pick(CIDRS)}}}`;
    default:
      return `{ipBlock: {cidr: ${r.pick(CIDRS)}, except: [${r.pick(["10.1.1.0/24", "10.1.0.128/25", "10.2.3.0/24"])}]}}`;
  }
}

function portEntry(r: ReturnType<typeof rng>): string {
  switch (r.int(5)) {
    case 0:
      return `{port: ${r.pick([80, 8080, 9090])}}`;
    case 1:
      return `{port: ${r.pick(["http", "metrics"])}}`;
    case 2:
      return `{port: 53, protocol: UDP}`;
    case 3:
      return `{port: dns, protocol: UDP}`;
    default:
      return `{port: ${r.pick([70, 8000])}, endPort: ${r.pick([85, 9100])}}`;
  }
}

function rules(r: ReturnType<typeof rng>, key: "from" | "to"): string {
  const out: string[] = [];
  for (let i = r.int(3); i >= 0; i--) {
    const parts: string[] = [];
    if (r.int(4) > 0)
      parts.push(`${key}: [${Array.from({ length: 1 + r.int(2) }, () => peer(r)).join(", ")}]`);
    if (r.int(3) > 0)
      parts.push(`ports: [${Array.from({ length: 1 + r.int(2) }, () => portEntry(r)).join(", ")}]`);
    out.push(`{${parts.join(", ")}}`);
  }
  return `[${out.join(", ")}]`;
}

/** A random cluster: 4 namespaces, up to 30 pods on 3 nodes, up to 10 policies. */
function cluster(seed: number): string {
  const r = rng(seed);
  const docs: string[] = [];
  for (let n = 0; n < 3; n++)
    docs.push(
      `apiVersion: v1\nkind: Node\nmetadata: {name: node-${n}}\nspec: {podCIDR: 10.${1 + (n % 2)}.${n}.0/24}\nstatus: {addresses: [{type: InternalIP, address: 192.168.1.${10 + n}}]}`,
    );
  for (let i = 0; i < 4; i++)
    docs.push(
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: ns${i}, labels: {team: t${i % 2}, env: ${i === 3 ? "dev" : "prod"}}}`,
    );
  const pods = 8 + r.int(23);
  for (let i = 0; i < pods; i++) {
    const labels = [`app: ${r.pick(APPS)}`];
    if (r.int(3) > 0) labels.push(`tier: ${r.pick(TIERS)}`);
    const host = r.int(10) === 0;
    const node = r.int(3);
    const ports = PORTS.filter(() => r.int(2) === 0);
    docs.push(`apiVersion: v1
kind: Pod
metadata: {name: p${i}, namespace: ns${r.int(4)}, labels: {${labels.join(", ")}}}
spec:
  nodeName: node-${node}
  hostNetwork: ${host}
  containers: [{name: c, ports: [${ports.join(", ")}]}]`);
  }
  const policies = r.int(11);
  for (let i = 0; i < policies; i++) {
    const types = r.pick([[], ["Ingress"], ["Egress"], ["Ingress", "Egress"]]);
    let spec = `podSelector: ${selector(r)}`;
    if (types.length) spec += `\n  policyTypes: [${types.join(", ")}]`;
    if (r.int(3) > 0) spec += `\n  ingress: ${rules(r, "from")}`;
    if (r.int(2) > 0) spec += `\n  egress: ${rules(r, "to")}`;
    docs.push(
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np${i}, namespace: ns${r.int(4)}}\nspec:\n  ${spec}`,
    );
  }
  return docs.join("\n---\n");
}

const QUERIES: [number, Protocol][] = [
  [80, "TCP"],
  [8080, "TCP"],
  [9090, "TCP"],
  [53, "UDP"],
  [75, "TCP"],
  [80, "SCTP"],
];

describe("the class path agrees with the exact per-pair path on random clusters", () => {
  // Sets are stored sparse or dense by size; run with every set sparse, the default, and every set dense.
  it.each([0, 32, Infinity])(
    "every pair, the summary counts and the pod matrix (sparseFactor %s)",
    (factor) => {
      const saved = setForm.sparseFactor;
      setForm.sparseFactor = factor;
      try {
        check();
      } finally {
        setForm.sparseFactor = saved;
      }
    },
    120_000,
  );
});

function check(): void {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const model = loadModel([{ name: "random.yaml", text: cluster(seed) }]);
      const index = buildPolicyIndex(model);
      const wrong: string[] = [];
      for (const [port, protocol] of QUERIES) {
        const m = classMatrix(index, port, protocol);
        const matrix = podMatrix(index, m);
        let allowed = 0;
        let isolatedIngress = 0;
        let isolatedEgress = 0;
        for (const src of model.pods) {
          for (const dst of model.pods) {
            const v = explainPair(model, src, dst, port, protocol);
            if (v.allowed) allowed++;
            if (src === dst) {
              if (v.ingress.isolated) isolatedIngress++;
              if (v.egress.isolated) isolatedEgress++;
            }
            if (pairAllowed(index, m, src, dst) !== v.allowed || matrix[src.index]![dst.index] !== v.allowed)
              wrong.push(`${src.key} > ${dst.key} ${protocol}/${port}: exact ${v.allowed}`);
          }
        }
        const s = reachSummary(index, m);
        if (
          s.allowedPairs !== allowed ||
          s.isolatedIngress !== isolatedIngress ||
          s.isolatedEgress !== isolatedEgress
        ) {
          wrong.push(
            `${protocol}/${port} summary ${JSON.stringify(s)}, exact ${allowed} pairs, ${isolatedIngress}/${isolatedEgress} isolated`,
          );
        }
      }
      expect(wrong, `seed ${seed}`).toEqual([]);
    }),
    { seed: 20240601, numRuns: 80 },
  );
}

/**
 * Go's net.ParseIP for IPv4 since Go 1.17, written plainly (four dot-separated parts of one to three digits,
 * no leading zero, each at most 255): the reference the engine's character-by-character reader is held to.
 */
function strictIPv4Reference(s: string): number | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0;
  for (const part of parts) {
    if (!/^[0-9]+$/.test(part) || part.length > 3 || (part.length > 1 && part[0] === "0")) return undefined;
    if (Number(part) > 255) return undefined;
    v = v * 256 + Number(part);
  }
  return v;
}

/** Go 1.16's net.ParseIP (k8s.io/utils/net ParseIPSloppy) for IPv4: leading zeros read as decimal. */
function sloppyIPv4Reference(s: string): number | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0;
  for (const part of parts) {
    if (!/^[0-9]+$/.test(part) || part.length > 10 || Number(part) > 255) return undefined;
    v = v * 256 + Number(part);
  }
  return v;
}

describe("ipv4Number, parseIPv4 and parseIPSloppy read IPv4 as Go's net.ParseIP does", () => {
  it("on dotted strings of digits, with leading zeros, too many parts and out-of-range parts", () => {
    const part = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map(String),
      fc.constantFrom("", "00", "01", "007", "1000", "a", " 1", "-1"),
    );
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("", "\n", " ", "."),
        (parts, tail) => {
          const s = parts.join(".") + tail;
          const want = strictIPv4Reference(s);
          expect(ipv4Number(s)).toBe(want === undefined ? -1 : want);
          expect(parseIPv4(s)).toBe(want === undefined ? undefined : BigInt(want));
          const sloppy = sloppyIPv4Reference(s);
          expect(parseIPSloppy(s)?.value).toBe(sloppy === undefined ? undefined : BigInt(sloppy));
        },
      ),
      { seed: 7, numRuns: 3000 },
    );
    expect([ipv4Number("0.0.0.0"), ipv4Number("255.255.255.255"), ipv4Number("10.244.1.5")]).toEqual([
      0, 4294967295, 183763205,
    ]);
  });
});
