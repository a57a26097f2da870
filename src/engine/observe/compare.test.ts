/**
 * Observed against predicted, on the fixture with planted disagreements
 * (scenarios/fixtures/observed-vs-predicted: the same traffic as Hubble
 * flows, Calico flow logs and CSV). Every prediction is the decider's (or,
 * to a Service, the trace's), and every explanation is a what-if the decider
 * confirmed.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildModel } from "../load/index.ts";
import { deciderOf } from "../decide/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { parseManifests } from "../parse/manifests.ts";
import type { PodKey } from "../model/ids.ts";
import { compareObserved } from "./compare.ts";
import type { ObserveReport } from "./report.ts";
import { parseFlows } from "./parse.ts";

const dir = join(import.meta.dirname, "../../../scenarios/fixtures/observed-vs-predicted");
const manifests = readFileSync(join(dir, "manifests.yaml"), "utf8");
const parsed = parseManifests([{ name: "manifests.yaml", text: manifests }]);

function observe(file: string, text = readFileSync(join(dir, file), "utf8"), cni?: "flannel"): ObserveReport {
  return compareObserved(
    { parsed, ...(cni ? { options: { cni } } : {}) },
    parseFlows([{ name: file, text }]),
  );
}

/** The rows every sample file gives: case, source, destination, port, seen forwarded/dropped. */
const CASES = [
  [
    "observed-dropped-but-predicted-allowed",
    "analytics/Deployment/collector",
    "tools/DaemonSet/metrics",
    9100,
    0,
    1,
  ],
  [
    "observed-dropped-but-predicted-allowed",
    "shop/Deployment/backend",
    "analytics/Deployment/collector",
    9000,
    0,
    14,
  ],
  ["observed-forwarded-but-predicted-dropped", "tools/Pod/toolbox", "shop/Deployment/backend", 8080, 2, 0],
  ["agree-dropped", "tools/Pod/toolbox", "shop/Deployment/payments", 8443, 0, 3],
  ["agree-allowed", "shop/Deployment/backend", "shop/StatefulSet/cache", 6379, 2, 0],
  ["agree-allowed", "shop/Deployment/frontend", "shop/Deployment/backend", 8080, 3, 0],
];
const SERVICE_ROW = ["agree-allowed", "shop/Deployment/frontend", "service:shop/backend", 80, 1, 0];

describe.each([
  ["hubble-flows.jsonl", { records: 31, matched: 29 }, true],
  ["calico-flows.jsonl", { records: 12, matched: 10 }, false],
  ["flows.csv", { records: 9, matched: 7 }, true],
])("%s against the manifests", (file, counts, service) => {
  const r = observe(file);

  it("each of the four cases shows, with the counts seen (a connection reported by both ends counted once)", () => {
    expect(
      r.flows.map((f) => [f.case, f.src, f.dst, f.port, f.observed.forwarded, f.observed.dropped]),
    ).toEqual(service ? [...CASES.slice(0, 5), SERVICE_ROW, CASES[5]] : CASES);
    expect(r.disagreements).toBe(3);
    expect({ records: r.records, matched: r.matched }).toEqual(counts);
  });

  it("lists what it could not match, with the reason and the record's line", () => {
    expect(r.unmatched).toHaveLength(2);
    for (const u of r.unmatched) expect(u.first.file).toBe(file);
    expect(r.unmatched.map((u) => [u.port, u.reason.split(":")[0]])).toEqual([
      [8080, "source"],
      [53, "destination"],
    ]);
  });

  it("every prediction is the decider's (pod to pod) or the trace's (to a Service)", () => {
    const model = buildModel(parsed);
    const decider = deciderOf(model);
    for (const f of r.flows) {
      const src = model.podsByKey.get(f.asked.src.replace("pod:", "") as PodKey)!;
      if (f.asked.dst.startsWith("pod:")) {
        const dst = model.podsByKey.get(f.asked.dst.replace(/^pod:/, "").replace(/:\d+$/, "") as PodKey)!;
        const d = decider.explain(src, dst, f.port, f.protocol);
        expect(`${f.src} -> ${f.dst}: ${f.predicted}`).toBe(
          `${f.src} -> ${f.dst}: ${d.allowed ? "allowed" : "dropped"}`,
        );
        expect(f.decidedBy?.name).toBe(d.decidedBy?.name);
      } else {
        const t = traceRequest(
          model,
          buildProxyIndex(model),
          `pod:${src.key}`,
          "ip:10.96.0.20:80",
          f.protocol,
        );
        expect(f.predicted).toBe(t.verdict === "allow" ? "allowed" : "dropped");
      }
    }
  });

  it("explains drops predicted allowed only by what the decider confirms: a default deny in analytics, 14 of 15", () => {
    const row = r.flows.find((f) => f.dst === "analytics/Deployment/collector")!;
    expect(row.explanation).toMatch(
      /a default-deny ingress NetworkPolicy in namespace analytics would explain 14 of 15 drops predicted allowed \(the decider confirms\)$/,
    );
    const h = r.hypotheses.find(
      (x) => x.text === "a default-deny ingress NetworkPolicy in namespace analytics",
    )!;
    expect(h).toMatchObject({ confirmed: true, explained: 14, of: 15, contradicted: 0 });
    expect(h.yaml).toMatch(/kind: NetworkPolicy\n[\s\S]*podSelector: \{\}\n\s+policyTypes:\n\s+- Ingress/);
    // A default deny egress in shop would explain the same drops but contradict what shop was seen sending.
    const egress = r.hypotheses.find(
      (x) => x.text === "a default-deny egress NetworkPolicy in namespace shop",
    )!;
    expect(egress.explained).toBe(14);
    expect(egress.contradicted).toBeGreaterThan(0);
  });

  it("explains forwards predicted dropped by the flannel profile, naming the policy that predicted the drop", () => {
    const row = r.flows.find((f) => f.case === "observed-forwarded-but-predicted-dropped")!;
    expect(row.decidedBy).toMatchObject({
      kind: "NetworkPolicy",
      namespace: "shop",
      name: "default-deny-ingress",
    });
    expect(row.explanation).toMatch(
      /predicted dropped by NetworkPolicy shop\/default-deny-ingress \(line \d+\)/,
    );
    expect(row.explanation).toMatch(
      /a CNI that enforces no policy \(the flannel profile\) would explain 2 of 2 forwards predicted dropped \(the decider confirms\), but then 3 observed drops would be predicted allowed/,
    );
    // Taking default-deny-ingress out leaves backend isolated by backend-from-frontend: the decider does not confirm it.
    const off = r.hypotheses.find((x) => x.kind === "policy-not-enforced")!;
    expect(off).toMatchObject({ confirmed: false, explained: 0 });
  });
});

describe("what the flow log says decided", () => {
  it("Calico's policies field names a policy the input lacks, and the explanation says so first", () => {
    const r = observe("calico-flows.jsonl");
    const row = r.flows.find((f) => f.dst === "analytics/Deployment/collector")!;
    expect(row.logged).toEqual([
      {
        policy: "GlobalNetworkPolicy security.quarantine-analytics (tier security)",
        inInput: false,
        records: 1,
      },
    ]);
    expect(row.explanation).toMatch(
      /^the flow log names GlobalNetworkPolicy security\.quarantine-analytics \(tier security\), which is not in the input; /,
    );
    const agree = r.flows.find((f) => f.dst === "shop/StatefulSet/cache")!;
    expect(agree.logged).toEqual([
      { policy: "NetworkPolicy shop/cache-from-backend", inInput: true, records: 1 },
    ]);
  });
});

describe("under the flannel profile", () => {
  it("everything is predicted allowed: the observed drops disagree, the forwards agree", () => {
    const r = observe("flows.csv", undefined, "flannel");
    expect(r.judgedBy).toMatch(/nothing/);
    expect(r.flows.filter((f) => f.predicted !== "allowed")).toEqual([]);
    expect(
      r.flows
        .filter((f) => f.case === "observed-dropped-but-predicted-allowed")
        .map((f) => f.observed.dropped),
    ).toEqual([1, 14, 3]);
    // No NetworkPolicy changes anything under flannel: no tested cause is confirmed.
    expect(r.hypotheses.filter((h) => h.confirmed)).toEqual([]);
    expect(r.flows[0]!.explanation).toMatch(/no tested change explains it/);
  });
});

describe("a drop that no tested change explains", () => {
  it("says a layer outside the input dropped it", () => {
    const text = `apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x, labels: {app: a}}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x, labels: {app: b}}
spec: {containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-all, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress: [{}]
  egress: [{}]
`;
    const r = compareObserved(
      { parsed: parseManifests([{ name: "m.yaml", text }]) },
      parseFlows([{ name: "f.csv", text: "x/a,x/b,80,TCP,dropped,5\n" }]),
    );
    expect(r.flows[0]).toMatchObject({
      case: "observed-dropped-but-predicted-allowed",
      observed: { dropped: 5 },
    });
    expect(r.flows[0]!.explanation).toMatch(
      /no tested change explains it .*: a layer not in the input dropped it/,
    );
    expect(r.hypotheses.length).toBeGreaterThan(0);
    expect(r.hypotheses.every((h) => !h.confirmed)).toBe(true);
  });
});

describe("counting", () => {
  it.each([
    [
      "reported at both ends: once",
      "source,destination,port,verdict,count,reporter\nx/a,x/b,80,allowed,4,src\nx/a,x/b,80,allowed,4,dst\n",
      4,
      0,
    ],
    [
      "allowed out, denied in: dropped only",
      "source,destination,port,verdict,count,reporter\nx/a,x/b,80,allowed,3,src\nx/a,x/b,80,denied,3,dst\n",
      0,
      3,
    ],
    [
      "seen by the source only",
      "source,destination,port,verdict,count,reporter\nx/a,x/b,80,allowed,2,src\n",
      2,
      0,
    ],
    ["no reporter: every record counts", "x/a,x/b,80,TCP,forwarded,2\nx/a,x/b,80,TCP,forwarded,5\n", 7, 0],
  ])("%s", (_, csv, forwarded, dropped) => {
    const text = `apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x}
spec: {containers: [{name: c, image: x}]}
`;
    const r = compareObserved(
      { parsed: parseManifests([{ name: "m.yaml", text }]) },
      parseFlows([{ name: "f.csv", text: csv }]),
    );
    expect(r.flows[0]!.observed).toEqual({ forwarded, dropped });
  });
});
