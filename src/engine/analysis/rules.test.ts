import { describe, expect, it } from "vitest";
import { openAnalysis } from "./index.ts";
import { hopOfRule } from "./rules.ts";
import { SCENARIOS, scenarioById } from "../../../scenarios/index.ts";
import { LESSONS } from "../../../scenarios/lessons.ts";
import {
  buildProxyIndex,
  computeConnlist,
  dataplaneOptions,
  formatConnlist,
  loadModel,
  nodeRules,
} from "../index.ts";

const open = (id: string) => {
  const s = scenarioById(id)!;
  return { s, session: openAnalysis([{ name: s.file, text: s.manifests }]) };
};

const HOPS = [
  { step: "source", verdict: "info" },
  { step: "destination", verdict: "pass" },
  { step: "loadBalancerSourceRanges", verdict: "pass" },
  { step: "loadBalancerSourceRanges", verdict: "pass" },
  { step: "kube-proxy", verdict: "pass" },
  { step: "session affinity", verdict: "info" },
  { step: "source address", verdict: "info" },
  { step: "ingress policy at backend", verdict: "pass" },
] as const;

describe("hopOfRule: each rule kube-proxy wrote (pkg/proxy/iptables/proxier.go syncProxyRules) links to the trace hop it carries out", () => {
  it.each([
    ["the KUBE-SERVICES clusterIP capture", "cluster-ip", "KUBE-SERVICES", HOPS, 4],
    ["a KUBE-SVC load-balancing rule (-m statistic)", "load-balance", "KUBE-SVC-J7AG6KGDZTGIPWLW", HOPS, 4],
    ["the KUBE-SEP DNAT", "dnat", "KUBE-SEP-MEAVB5BEDYZWQXL2", HOPS, 4],
    ["a built-in chain's jump (kubernetes service portals)", "jump", "PREROUTING", HOPS, 4],
    [
      "KUBE-MARK-MASQ from a KUBE-SVC chain (masqueradeRule)",
      "masquerade",
      "KUBE-SVC-J7AG6KGDZTGIPWLW",
      HOPS,
      6,
    ],
    ["the hairpin KUBE-MARK-MASQ of a KUBE-SEP chain", "hairpin", "KUBE-SEP-MEAVB5BEDYZWQXL2", HOPS, 6],
    ["KUBE-POSTROUTING's RETURN for unmarked packets", "base", "KUBE-POSTROUTING", HOPS, 6],
    ["the nat POSTROUTING jump", "jump", "POSTROUTING", HOPS, 6],
    ["the ClientIP affinity -m recent rule", "affinity", "KUBE-SVC-J7AG6KGDZTGIPWLW", HOPS, 5],
    [
      "a KUBE-FW source-range rule: kube-proxy's firewall, after the cloud's",
      "firewall",
      "KUBE-FW-PY4JZH2ITZYEO4CN",
      HOPS,
      3,
    ],
    ["the KUBE-PROXY-FIREWALL DROP", "firewall", "KUBE-PROXY-FIREWALL", HOPS, 3],
  ] as const)("%s", (_, role, chain, hops, want) => {
    expect(hopOfRule({ role }, chain, hops)).toBe(want);
  });

  it("a rule whose hop the trace lacks falls back to the kube-proxy hop", () => {
    expect(
      hopOfRule({ role: "masquerade" }, "KUBE-MARK-MASQ", [
        { step: "source", verdict: "info" },
        { step: "kube-proxy", verdict: "pass" },
      ]),
    ).toBe(1);
  });

  it("the KUBE-PROXY-FIREWALL DROP of a trace stopped before kube-proxy links to the dropping loadBalancerSourceRanges hop", () => {
    expect(
      hopOfRule({ role: "firewall" }, "KUBE-PROXY-FIREWALL", [
        { step: "load balancer", verdict: "pass" },
        { step: "loadBalancerSourceRanges", verdict: "drop" },
      ]),
    ).toBe(1);
  });

  it("without a kube-proxy hop a rule links to the hop that dropped, else to none", () => {
    expect(
      hopOfRule({ role: "no-endpoints" }, "KUBE-SERVICES", [{ step: "destination", verdict: "drop" }]),
    ).toBe(0);
    expect(hopOfRule(undefined, "KUBE-SERVICES", [{ step: "source", verdict: "info" }])).toBeUndefined();
  });
});

describe("the Node rules view prints exactly what ktl iptables|nft|ipvs --node NAME prints", () => {
  for (const s of SCENARIOS.slice(0, 4)) {
    const model = loadModel([{ name: s.file, text: s.manifests }]);
    const index = buildProxyIndex(model);
    const session = openAnalysis([{ name: s.file, text: s.manifests }]);
    for (const mode of ["iptables", "nftables", "ipvs"] as const) {
      it(`${s.id}, ${mode}, every node`, () => {
        for (const n of model.nodes) {
          const v = session.rules({ node: n.name, mode });
          expect(v.error).toBeUndefined();
          expect(v.nodes).toEqual(model.nodes.map((x) => x.name));
          expect(v.lines.join("\n") + "\n").toBe(
            nodeRules(model, index, n.name, mode, dataplaneOptions(model)).text,
          );
        }
      });
    }
  }

  it("IPVS mode says it is deprecated in 1.35 (KEP-5495); iptables and nftables do not", () => {
    const { session } = open("01-trace-a-shop-across-zones");
    expect(session.rules({ node: "node-a", mode: "ipvs" }).deprecated).toMatch(
      /deprecated in Kubernetes 1\.35 \(KEP-5495\).*nftables/,
    );
    expect(session.rules({ node: "node-a", mode: "nftables" }).deprecated).toBeUndefined();
  });

  it("an unknown node is an error naming the nodes, not an exception", () => {
    const { session } = open("01-trace-a-shop-across-zones");
    const v = session.rules({ node: "nope", mode: "iptables" });
    expect(v.error).toMatch(/no node nope in the input \(nodes: node-a, node-b\)/);
    expect(v.lines).toEqual([]);
  });

  it("is plain JSON (what the worker posts)", () => {
    const { session } = open("04-drop-calls-with-no-local-endpoint");
    const v = session.rules({
      mode: "iptables",
      trace: { from: "pod:default/client", to: "service:default/nginx-sample-svc:80", protocol: "TCP" },
    });
    expect(JSON.parse(JSON.stringify(v))).toEqual(v);
  });
});

describe("a question's walk through the rules", () => {
  it('internalTrafficPolicy Local without a local endpoint: the packet stops at the "has no local endpoints" DROP, linked to the dropping kube-proxy hop (proxier.go: internalTrafficFilterTarget DROP)', () => {
    const { session } = open("04-drop-calls-with-no-local-endpoint");
    const q = {
      from: "pod:default/client",
      to: "service:default/nginx-sample-svc:80",
      protocol: "TCP",
    } as const;
    const trace = session.trace(q);
    const v = session.rules({ mode: "iptables", trace: q });
    expect(v.node).toBe(trace.handledBy);
    expect(v.walk?.packet).toBe("10.244.2.2 -> 10.110.9.10:80/TCP arriving on veth0a1b2c3d (PREROUTING)");
    expect(v.walk?.branches).toHaveLength(1);
    const b = v.walk!.branches[0]!;
    expect(b.verdict).toBe("drop");
    const stop = b.steps[b.stoppedAt!]!;
    expect(v.lines[stop.line]).toBe(
      '-A KUBE-SERVICES -d 10.110.9.10/32 -p tcp -m comment --comment "default/nginx-sample-svc has no local endpoints" -m tcp --dport 80 -j DROP',
    );
    expect(stop.action).toBe("drop");
    expect(trace.hops[stop.hop!]).toMatchObject({ step: "kube-proxy", verdict: "drop" });
    // The walk begins at the nat PREROUTING jump and every step points at its own printed line.
    expect(v.lines[b.steps[0]!.line]).toBe(
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    );
    for (const s of b.steps) expect(v.lines[s.line]).toMatch(new RegExp(`^-A ${s.chain} `));
  });

  it("an allowed request forks at each -m statistic rule: one branch per endpoint with kube-proxy's chance, DNAT linked to the kube-proxy hop", () => {
    const { session } = open("01-trace-a-shop-across-zones");
    const q = { from: "pod:shop/frontend-0", to: "service:shop/backend:80", protocol: "TCP" } as const;
    const trace = session.trace(q);
    const v = session.rules({ mode: "iptables", trace: q });
    const branches = v.walk!.branches;
    expect(branches.map((b) => b.endpoint).sort()).toEqual(
      trace.endpoints.map((e) => `${e.ip}:${e.port}`).sort(),
    );
    for (const b of branches) {
      expect(b.verdict).toBe("accept");
      expect(b.stoppedAt).toBeUndefined();
      const dnat = b.steps.find((s) => s.action === "dnat")!;
      expect(trace.hops[dnat.hop!]!.step).toBe("kube-proxy");
    }
    expect(branches.reduce((n, b) => n + b.probability, 0)).toBeCloseTo(1, 9);
  });

  it("another node's rules say which node handles the packet instead of walking", () => {
    const { session } = open("04-drop-calls-with-no-local-endpoint");
    const q = {
      from: "pod:default/client",
      to: "service:default/nginx-sample-svc:80",
      protocol: "TCP",
    } as const;
    const v = session.rules({ node: "aks-nodepool1-23236778-vmss000000", mode: "iptables", trace: q });
    expect(v.node).toBe("aks-nodepool1-23236778-vmss000000");
    expect(v.walk?.branches).toEqual([]);
    expect(v.walk?.handledElsewhere).toBe("aks-nodepool1-23236778-vmss000002");
  });

  it("nftables and IPVS modes walk the packet too (issue 17): the verdict-map element, or the virtual server with no real server", () => {
    const { session } = open("04-drop-calls-with-no-local-endpoint");
    const q = {
      from: "pod:default/client",
      to: "service:default/nginx-sample-svc:80",
      protocol: "TCP",
    } as const;
    // internalTrafficPolicy: Local with no local endpoint: nftables drops it through @no-endpoint-services
    // (nftables/proxier.go syncProxyRules), and its element line is marked with the rule.
    const nft = session.rules({ mode: "nftables", trace: q });
    const nb = nft.walk!.branches;
    expect(nb).toHaveLength(1);
    expect(nb[0]!.verdict).toBe("drop");
    const stop = nb[0]!.steps[nb[0]!.stoppedAt!]!;
    expect(nft.lines[stop.line]).toMatch(/vmap @no-endpoint-services/);
    const element = nb[0]!.steps.find((st) => st.chain === "@no-endpoint-services")!;
    expect(nft.lines[element.line]).toMatch(/10\.110\.9\.10 \. tcp \. 80 .*: drop/);
    expect(stop.hop).toBe(2);
    // IPVS: the ClusterIP's virtual server has no real server (CategorizeEndpoints gives no cluster list to fall back
    // to for an internal Local policy, ipvs/proxier.go syncEndpoint): IPVS answers ICMP port unreachable.
    const ipvs = session.rules({ mode: "ipvs", trace: q });
    const ib = ipvs.walk!.branches;
    expect(ib.map((b) => b.verdict)).toEqual(["reject"]);
    expect(ipvs.lines[ib[0]!.steps[0]!.line]).toMatch(/^TCP {2}10\.110\.9\.10:80 rr/);
  });

  it("IPVS mode: a Service's new connection goes to one of the virtual server's real servers, each with its share", () => {
    const { session } = open("01-trace-a-shop-across-zones");
    const q = { from: "pod:tools/toolbox", to: "service:shop/backend:80", protocol: "TCP" } as const;
    const v = session.rules({ mode: "ipvs", trace: q });
    const branches = v.walk!.branches;
    expect(branches.length).toBeGreaterThan(0);
    expect(branches.reduce((n, b) => n + b.probability, 0)).toBeCloseTo(1, 12);
    for (const b of branches) {
      expect(v.lines[b.steps[0]!.line]).toMatch(/^TCP {2}\S+:80 /);
      expect(v.lines[b.steps[1]!.line]).toContain(`-> ${b.endpoint}`);
    }
  });

  it("every lesson check that kube-proxy drops or rejects stops at a DROP or REJECT rule linked to a dropping hop", () => {
    let stopped = 0;
    for (const l of LESSONS) {
      const session = openAnalysis([{ name: l.file, text: l.manifests }]);
      for (const c of l.checks) {
        const q = { from: c.from, to: c.to, protocol: c.protocol ?? "TCP" };
        const trace = session.trace(q);
        const v = session.rules({ mode: "iptables", trace: q });
        const stops = (v.walk?.branches ?? []).filter((b) => b.stoppedAt !== undefined);
        for (const b of stops) {
          const s = b.steps[b.stoppedAt!]!;
          expect(v.lines[s.line], `${l.id} ${c.from} -> ${c.to}`).toMatch(/ -j (DROP|REJECT)/);
          expect(trace.hops[s.hop!]?.verdict, `${l.id} ${c.from} -> ${c.to}`).toBe("drop");
          stopped++;
        }
      }
    }
    expect(stopped).toBeGreaterThan(0);
  });
});

describe("the connectivity list download is ktl connlist's output", () => {
  for (const id of [
    "01-trace-a-shop-across-zones",
    "04-drop-calls-with-no-local-endpoint",
    "06-combine-selectors-in-one-peer",
  ]) {
    it(id, () => {
      const { s, session } = open(id);
      const list = computeConnlist(loadModel([{ name: s.file, text: s.manifests }]));
      expect(session.connlist("txt")).toBe(formatConnlist(list, "txt"));
      expect(session.connlist("json")).toBe(formatConnlist(list, "json"));
      expect(JSON.parse(session.connlist("json"))).toHaveLength(list.lines.length);
    });
  }
});
