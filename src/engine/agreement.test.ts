/**
 * One question, one answer: every surface that answers "is this connection
 * allowed?" agrees with the one decider (decide/), on random clusters
 * (NetworkPolicy, the cluster tiers, host-network pods; Cilium and Calico
 * policies) under every cluster profile. The surfaces:
 *
 * - `ktl reach --json` (the command itself, in process);
 * - `ktl trace` (traceRequest) and `ktl test` (runExpectation), pair by pair;
 * - the playground's matrix (AnalysisSession.matrix, by pod);
 * - the graph's pod-to-pod edges (the analysis's direct flows: allow when
 *   every sender of the edge is admitted, drop when none is, else partial);
 * - `ktl connlist` and `ktl diff` (no policy -> the input), where
 *   netpol-analyzer's view is the pods' own (no host-network pod, no
 *   address peer that could match a pod);
 * - `ktl observe`: flows observed exactly as the decider answers disagree
 *   nowhere, and each row's prediction is the decider's.
 *
 * A surface that decides for itself fails here. The L7 routers' drawn route
 * edges against their traces: analysis/routerAgreement.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildProxyIndex, loadModel, traceRequest, type Model, type Protocol } from "./index.ts";
import { deciderOf } from "./decide/index.ts";
import { openAnalysis } from "./analysis/index.ts";
import { computeConnlist, parsePortSet } from "./connlist/index.ts";
import { diffWorkloads } from "./diff/workloads.ts";
import { runExpectation } from "./expect/index.ts";
import { compareObserved } from "./observe/compare.ts";
import { parseFlows } from "./observe/parse.ts";
import { parseManifests } from "./parse/manifests.ts";
import type { CniName } from "./cni/profile.ts";
import { randomStackCluster } from "./policy/test-fixtures.ts";
import { rng } from "./testing/random.ts";
import { run as reach } from "../cli/commands/reach.ts";

const PROBES: [number, Protocol][] = [
  [80, "TCP"],
  [8080, "TCP"],
  [53, "UDP"],
];
const dir = mkdtempSync(join(tmpdir(), "ktl-agreement-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A random cluster with Cilium or Calico policies (and NetworkPolicies inside them), from a seed. */
function randomCniCluster(seed: number): string {
  const r = rng(seed);
  const apps = ["a", "b", "c"];
  const docs: string[] = [];
  for (let n = 0; n < 2; n++)
    docs.push(`apiVersion: v1\nkind: Node\nmetadata: {name: node-${n}}\nspec: {podCIDR: 10.244.${n}.0/24}`);
  for (const ns of ["x", "y"])
    docs.push(`apiVersion: v1\nkind: Namespace\nmetadata: {name: ${ns}, labels: {team: t-${ns}}}`);
  const pods = 4 + r.int(7);
  for (let i = 0; i < pods; i++)
    docs.push(`apiVersion: v1
kind: Pod
metadata: {name: p${i}, namespace: ${r.pick(["x", "y"])}, labels: {app: ${r.pick(apps)}}}
spec: {nodeName: node-${r.int(2)}, ${r.int(3) === 0 ? "serviceAccount: robot, " : ""}containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}, {name: dns, containerPort: 53, protocol: UDP}]}]}`);
  const cilium = r.int(2) === 0;
  for (let i = 1 + r.int(3); i > 0; i--) {
    const ns = r.pick(["x", "y"]);
    const self = r.pick(apps);
    const peer = r.pick(apps);
    if (cilium) {
      const port = r.pick(["", `\n    toPorts: [{ports: [{port: "80", protocol: TCP}]}]`]);
      const dirn = r.pick(["ingress", "egress", "ingressDeny"]);
      const key = dirn === "egress" ? "toEndpoints" : "fromEndpoints";
      const sel =
        r.int(3) === 0
          ? `{matchLabels: {io.cilium.k8s.policy.serviceaccount: robot}}`
          : `{matchLabels: {app: ${peer}}}`;
      docs.push(
        `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: c${i}, namespace: ${ns}}\nspec:\n  endpointSelector: {matchLabels: {app: ${self}}}\n  ${dirn}:\n  - ${key}: [${sel}]${port}`,
      );
    } else {
      const action = r.pick(["Allow", "Deny", "Pass"]);
      const ports = r.pick(["", `\n    protocol: TCP\n    destination: {ports: [80]}`]);
      const source = r.int(3) === 0 ? "serviceAccounts: {names: [robot]}" : `selector: app == '${peer}'`;
      docs.push(
        `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: c${i}, namespace: ${ns}}\nspec:\n  selector: app == '${self}'\n  types: [Ingress]\n  ingress:\n  - action: ${action}${ports}\n    source: {${source}}`,
      );
    }
  }
  docs.push(...replicasJudgedByName(seed, cilium));
  if (r.int(2) === 0)
    docs.push(
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np, namespace: ${r.pick(["x", "y"])}}\nspec:\n  podSelector: {matchLabels: {app: ${r.pick(apps)}}}\n  policyTypes: [Ingress]\n  ingress: [{from: [{podSelector: {matchLabels: {app: ${r.pick(apps)}}}}]}]`,
    );
  return docs.join("\n---\n");
}

/**
 * A StatefulSet's replicas (one template, each its own pod-name label) and
 * sometimes a CNI policy that admits one of them by that label: the graph's
 * source groups must not lump them together (netpol/classes.ts keeps every
 * label when a CNI dialect is in the input). A stream of its own, so the rest
 * of a seed's cluster is as it was.
 */
function replicasJudgedByName(seed: number, cilium: boolean): string[] {
  const r = rng(seed ^ 0x5eed5);
  const docs: string[] = [];
  for (let i = r.int(4); i > 0; i--)
    docs.push(`apiVersion: v1
kind: Pod
metadata:
  name: db-${i}
  namespace: x
  labels: {app: a, statefulset.kubernetes.io/pod-name: db-${i}}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u-db, controller: true}]
spec: {nodeName: node-0, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}`);
  // A Service the replicas send to: the graph traces one sender per source group toward it.
  docs.push(
    `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: x}\nspec: {selector: {app: b}, ports: [{port: 80, targetPort: 80}]}`,
  );
  if (r.int(2) === 0)
    docs.push(
      cilium
        ? `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: one-replica, namespace: x}\nspec:\n  endpointSelector: {matchLabels: {app: ${r.pick(["a", "b"])}}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {statefulset.kubernetes.io/pod-name: db-1}}]`
        : `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: one-replica, namespace: x}\nspec:\n  selector: app == '${r.pick(["a", "b"])}'\n  types: [Ingress]\n  ingress:\n  - action: Allow\n    source: {selector: statefulset.kubernetes.io/pod-name == 'db-1'}`,
    );
  return docs;
}

interface Case {
  name: string;
  text: string;
  cni?: CniName;
}

const stackProfiles: (CniName | undefined)[] = [undefined, "flannel", "cilium"];
const cases: Case[] = [
  ...[1, 2, 3, 4, 5, 6].flatMap((seed) =>
    stackProfiles.map((cni) => ({
      name: `stack #${seed}${cni ? ` under ${cni}` : ""}`,
      text: randomStackCluster(seed),
      ...(cni ? { cni } : {}),
    })),
  ),
  ...Array.from({ length: 40 }, (_, i) => 11 + i).flatMap((seed) =>
    ([undefined, "flannel"] as const).map((cni) => ({
      name: `CNI #${seed}${cni ? ` under ${cni}` : ""}`,
      text: randomCniCluster(seed),
      ...(cni ? { cni } : {}),
    })),
  ),
];

const load = (c: Case, text = c.text): Model =>
  loadModel([{ name: "c.yaml", text }], c.cni ? { cni: c.cni } : {});

function truth(model: Model, port: number, protocol: Protocol): boolean[][] {
  const m = deciderOf(model).matrix(port, protocol);
  return model.pods.map((a) => model.pods.map((b) => m.allowed(a, b)));
}

/** The input without its policy objects: the same pods, nothing enforced. */
function withoutPolicies(text: string): string {
  return text
    .split("\n---\n")
    .filter((d) => /\nkind: (Node|Namespace|Pod)\n/.test(`\n${d}\n`))
    .join("\n---\n");
}

describe.each(cases)("$name: every surface asks the one decider", (c) => {
  const model = load(c);
  const pods = model.pods;

  it("ktl reach --json", () => {
    const file = join(dir, `${c.name.replace(/\W+/g, "-")}.yaml`);
    writeFileSync(file, c.text);
    for (const [port, protocol] of PROBES) {
      const out: string[] = [];
      const argv = [
        "--json",
        "--port",
        String(port),
        "--protocol",
        protocol,
        ...(c.cni ? ["--cni", c.cni] : []),
        file,
      ];
      expect(reach(argv, { out: (s) => out.push(s), err: () => {} })).toBe(0);
      const json = JSON.parse(out.join("\n")) as { pods: string[]; allowed: boolean[][] };
      expect(json.pods).toEqual(pods.map((p) => p.key));
      expect(json.allowed, `${protocol}/${port}`).toEqual(truth(model, port, protocol));
    }
  });

  it("the playground's matrix and the graph's pod-to-pod edges", () => {
    const session = openAnalysis([{ name: "c.yaml", text: c.text }], c.cni ? { cni: c.cni } : {});
    for (const [port, protocol] of PROBES) {
      const want = truth(model, port, protocol);
      const view = session.matrix({ port, protocol, by: "pod" });
      expect(view.cells, `${protocol}/${port}`).toEqual(
        want.map((row) => row.map((a) => (a ? "a" : "d")).join("")),
      );
    }
    const index = new Map(pods.map((p, i) => [`pod:${p.key}`, i]));
    for (const f of session.analysis.flows.filter((f) => f.kind === "pod")) {
      const d = index.get(f.to)!;
      const want = truth(model, f.port, f.protocol);
      const admitted = f.from.filter((s) => want[index.get(s)!]![d]).length;
      const verdict = admitted === f.from.length ? "allow" : admitted === 0 ? "drop" : "partial";
      expect(`${f.id}: ${f.verdict}`).toBe(`${f.id}: ${verdict}`);
    }
  });

  it("the graph's Service edges: the senders of one edge get one answer at each endpoint", () => {
    // An edge to a Service is traced from its first sender (flows/index.ts): its senders must be alike.
    const session = openAnalysis([{ name: "c.yaml", text: c.text }], c.cni ? { cni: c.cni } : {});
    const proxy = buildProxyIndex(model);
    const byId = new Map(pods.map((p, i) => [`pod:${p.key}`, i]));
    for (const f of session.analysis.flows.filter((f) => f.kind === "service" && f.from.length > 1)) {
      const service = model.services.find((s) => `service:${s.key}` === f.to)!;
      const at = service.ports.findIndex((p) => p.port === f.port && p.protocol === f.protocol);
      const eps = proxy.services.get(service.key)?.ports[at];
      for (const ep of [...(eps?.v4 ?? []), ...(eps?.v6 ?? [])]) {
        if (!ep.pod) continue;
        const d = byId.get(`pod:${ep.pod}`)!;
        const want = truth(model, ep.port, f.protocol);
        const answers = new Set(f.from.map((s) => want[byId.get(s)!]![d]));
        expect(`${f.id} at ${ep.pod}: ${answers.size}`).toBe(`${f.id} at ${ep.pod}: 1`);
      }
    }
  });

  it("ktl trace and ktl test, pair by pair", () => {
    const proxy = buildProxyIndex(model);
    const r = rng(pods.length);
    for (const [port, protocol] of PROBES) {
      const want = truth(model, port, protocol);
      for (let k = 0; k < 40; k++) {
        const i = r.int(pods.length);
        const j = r.int(pods.length);
        if (i === j || pods[j]!.ips.length === 0) continue;
        const [a, b] = [pods[i]!, pods[j]!];
        const t = traceRequest(model, proxy, `pod:${a.key}`, `pod:${b.key}:${port}`, protocol);
        const verdict = want[i]![j] ? "allow" : "drop";
        expect(`${a.key} -> ${b.key} ${protocol}/${port}: ${t.error ?? t.verdict}`).toBe(
          `${a.key} -> ${b.key} ${protocol}/${port}: ${verdict}`,
        );
        const e = runExpectation(model, proxy, {
          name: "t",
          from: `pod:${a.key}`,
          to: `pod:${b.key}:${port}`,
          protocol,
          expect: verdict,
          file: "t.yaml",
          doc: 0,
          line: 1,
          format: "ktl",
        });
        expect(e.failures).toEqual([]);
      }
    }
  });

  it("ktl observe: flows seen as the decider answers agree, row by row", () => {
    const r = rng(pods.length + 7);
    const rows: string[] = [];
    const want = new Map<string, boolean>();
    for (const [port, protocol] of PROBES) {
      const m = truth(model, port, protocol);
      for (let k = 0; k < 15; k++) {
        const i = r.int(pods.length);
        const j = r.int(pods.length);
        if (i === j) continue;
        const [a, b] = [pods[i]!, pods[j]!];
        rows.push(`${a.key},${b.key},${port},${protocol},${m[i]![j] ? "forwarded" : "dropped"},1`);
        want.set(`pod:${a.key} pod:${b.key} ${protocol}/${port}`, m[i]![j]!);
      }
    }
    const report = compareObserved(
      {
        parsed: parseManifests([{ name: "c.yaml", text: c.text }]),
        ...(c.cni ? { options: { cni: c.cni } } : {}),
      },
      parseFlows([{ name: "seen.csv", text: rows.join("\n") }]),
    );
    expect(report.unmatched).toEqual([]);
    expect(report.disagreements).toBe(0);
    for (const f of report.flows) {
      if (f.predicted === "partial") continue;
      const at = `${f.asked.src} ${f.asked.dst.replace(/:\d+$/, "")} ${f.protocol}/${f.port}`;
      expect(`${at}: ${f.predicted}`).toBe(`${at}: ${want.get(at) ? "allowed" : "dropped"}`);
    }
  });

  // netpol-analyzer's view: pods have no addresses and hostNetwork is ignored, so compare where that is the pods' own view.
  const ownView = !/hostNetwork: true|networks:|nodes:/.test(c.text);
  it.runIf(ownView)("ktl connlist and ktl diff (no policy -> the input)", () => {
    const lines = new Map(computeConnlist(model).lines.map((l) => [`${l.src} ${l.dst}`, l.conns]));
    const changes = new Map(
      diffWorkloads(load(c, withoutPolicies(c.text)), model).map((w) => [`${w.src} ${w.dst}`, w.after]),
    );
    const name = (i: number) => `${pods[i]!.namespace}/${pods[i]!.name}[Pod]`;
    const has = (s: ReturnType<typeof parsePortSet>, port: number, protocol: Protocol) =>
      !!s?.[protocol].some(([x, y]) => x <= port && port <= y);
    for (const [port, protocol] of PROBES) {
      const want = truth(model, port, protocol);
      for (let i = 0; i < pods.length; i++)
        for (let j = 0; j < pods.length; j++) {
          // connlist and diff name a controller's pods by their workload (x/db[StatefulSet]): pod by pod here, bare pods only.
          if (i === j || pods[i]!.workload.kind !== "Pod" || pods[j]!.workload.kind !== "Pod") continue;
          const key = `${name(i)} ${name(j)}`;
          const conns = lines.get(key);
          const at = `${key} ${protocol}/${port}`;
          expect(`${at}: ${!!conns && has(conns, port, protocol)}`).toBe(`${at}: ${want[i]![j]}`);
          const after = changes.get(key) ?? "All Connections";
          expect(`${at} (diff): ${has(parsePortSet(after), port, protocol)}`).toBe(
            `${at} (diff): ${want[i]![j]}`,
          );
        }
    }
  });
});
