/**
 * Lint rules: each with an input that trips it and a near-identical one that
 * does not. The behaviour each rule warns about is named in its case.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { validateModel, validationDiagnostics } from "./index.ts";

const NODES = ["a", "b"]
  .map(
    (z) =>
      `apiVersion: v1\nkind: Node\nmetadata: {name: node-${z}, labels: {topology.kubernetes.io/zone: zone-${z}}}\nspec: {podCIDR: 10.244.${z === "a" ? 1 : 2}.0/24}`,
  )
  .join("\n---\n");

function pod(
  name: string,
  node: string,
  labels: string,
  ports = "[{name: http, containerPort: 8080}]",
  ns = "shop",
): string {
  return `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}, labels: ${labels}}\nspec: {nodeName: ${node}, containers: [{name: c, image: x, ports: ${ports}}]}`;
}

function service(spec: string, name = "web"): string {
  return `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: shop}\nspec:\n${spec
    .split("\n")
    .filter(Boolean)
    .map((l) => `  ${l}`)
    .join("\n")}`;
}

function policy(spec: string, name = "np", ns = "shop"): string {
  return `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n${spec
    .split("\n")
    .filter(Boolean)
    .map((l) => `  ${l}`)
    .join("\n")}`;
}

/** Validation of the test nodes and `docs`, one file. */
function validated(...docs: string[]) {
  return validateModel(loadModel([{ name: "t.yaml", text: [NODES, ...docs].join("\n---\n") }]));
}

function codes(...docs: string[]): string[] {
  const r = validated(...docs);
  expect(r.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([]);
  return r.warnings.map((w) => `${w.code} ${w.field}`);
}

const WEB_A = pod("web-a", "node-a", "{app: web}");
const WEB_B = pod("web-b", "node-b", "{app: web}");
const CLIENT_B = pod("client", "node-b", "{app: client}");
const NS_WEB = "apiVersion: v1\nkind: Namespace\nmetadata: {name: storefront, labels: {team: storefront}}";

interface Case {
  name: string;
  docs: string[];
  want: string[];
  absent?: string;
}

const cases: Case[] = [
  {
    name: "KTL601 a policy whose podSelector matches no pod isolates nothing",
    docs: [WEB_A, policy("podSelector: {matchLabels: {app: wbe}}\npolicyTypes: [Ingress]")],
    want: ["KTL601 spec.podSelector"],
  },
  {
    name: "KTL601 not raised when the policy selects a pod",
    docs: [WEB_A, policy("podSelector: {matchLabels: {app: web}}\npolicyTypes: [Ingress]")],
    want: [],
    absent: "KTL601",
  },
  {
    name: "KTL602 a selector that matches no pod leaves the Service without endpoints",
    docs: [WEB_A, service("selector: {app: wbe}\nports: [{port: 80, targetPort: http}]")],
    want: ["KTL602 spec.selector"],
  },
  {
    name: "KTL602 not raised for a selector that matches",
    docs: [WEB_A, service("selector: {app: web}\nports: [{port: 80, targetPort: http}]")],
    want: [],
    absent: "KTL602",
  },
  {
    name: "KTL603 a named targetPort no backend declares (EndpointSlice controller podutil.FindPort)",
    docs: [WEB_A, service("selector: {app: web}\nports: [{port: 80, targetPort: web}]")],
    want: ["KTL603 spec.ports[0].targetPort"],
  },
  {
    name: "KTL603 a named targetPort only some backends declare",
    docs: [
      WEB_A,
      pod("web-b", "node-b", "{app: web}", "[{name: other, containerPort: 8080}]"),
      service("selector: {app: web}\nports: [{port: 80, targetPort: http}]"),
    ],
    want: ["KTL603 spec.ports[0].targetPort"],
  },
  {
    name: "KTL603 not raised when every backend declares the named port",
    docs: [WEB_A, WEB_B, service("selector: {app: web}\nports: [{port: 80, targetPort: http}]")],
    want: [],
    absent: "KTL603",
  },
  {
    name: "KTL604 externalTrafficPolicy Local with backends on one of two nodes drops traffic at the other",
    docs: [
      WEB_A,
      service(
        "type: NodePort\nexternalTrafficPolicy: Local\nselector: {app: web}\nports: [{port: 80, targetPort: http}]",
      ),
    ],
    want: ["KTL604 spec.externalTrafficPolicy"],
  },
  {
    name: "KTL604 not raised with one backend on every node",
    docs: [
      WEB_A,
      WEB_B,
      service(
        "type: NodePort\nexternalTrafficPolicy: Local\nselector: {app: web}\nports: [{port: 80, targetPort: http}]",
      ),
    ],
    want: [],
    absent: "KTL604",
  },
  {
    name: "KTL604 not raised for a node whose only backend is terminating but serving (kube-proxy falls back to it, KEP-1669)",
    docs: [
      WEB_A,
      `apiVersion: v1\nkind: Pod\nmetadata: {name: web-old, namespace: shop, labels: {app: web}, deletionTimestamp: "2025-01-01T00:00:00Z"}\nspec: {nodeName: node-b, containers: [{name: c, image: x, ports: [{name: http, containerPort: 8080}]}]}\nstatus: {phase: Running, podIP: 10.244.2.9, conditions: [{type: Ready, status: "True"}]}`,
      service(
        "type: NodePort\nexternalTrafficPolicy: Local\nselector: {app: web}\nports: [{port: 80, targetPort: http}]",
      ),
    ],
    want: [],
    absent: "KTL604",
  },
  {
    name: "KTL605 internalTrafficPolicy Local: a client on a node without a backend gets nothing",
    docs: [
      WEB_A,
      CLIENT_B,
      service("internalTrafficPolicy: Local\nselector: {app: web}\nports: [{port: 80, targetPort: http}]"),
    ],
    want: ["KTL605 spec.internalTrafficPolicy"],
  },
  {
    name: "KTL605 not raised when every node with clients has a backend",
    docs: [
      WEB_A,
      WEB_B,
      CLIENT_B,
      service("internalTrafficPolicy: Local\nselector: {app: web}\nports: [{port: 80, targetPort: http}]"),
    ],
    want: [],
    absent: "KTL605",
  },
  {
    name: "KTL606 default-deny egress without a DNS allowance",
    docs: [WEB_A, policy("podSelector: {}\npolicyTypes: [Egress]")],
    want: ["KTL606 spec.policyTypes"],
  },
  {
    name: "KTL606 not raised when an egress rule allows UDP/53",
    docs: [
      WEB_A,
      policy(
        "podSelector: {}\npolicyTypes: [Egress]\negress: [{ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]}]",
      ),
    ],
    want: [],
    absent: "KTL606",
  },
  {
    name: "KTL606 uses the cluster's DNS pods when the input has them",
    docs: [
      WEB_A,
      pod(
        "coredns-0",
        "node-a",
        "{k8s-app: kube-dns}",
        "[{name: dns, containerPort: 53, protocol: UDP}]",
        "kube-system",
      ),
      policy(
        "podSelector: {}\npolicyTypes: [Egress]\negress: [{to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}}], ports: [{protocol: UDP, port: 53}]}]",
      ),
    ],
    want: ["KTL606 spec.egress"],
  },
  {
    name: "KTL607 an ipBlock for external clients of a NodePort Service with externalTrafficPolicy Cluster (masqueraded)",
    docs: [
      WEB_A,
      service("type: NodePort\nselector: {app: web}\nports: [{port: 80, targetPort: http}]"),
      policy(
        "podSelector: {matchLabels: {app: web}}\ningress: [{from: [{ipBlock: {cidr: 203.0.113.0/24}}]}]",
      ),
    ],
    want: ["KTL607 spec.ingress[0].from[0].ipBlock"],
  },
  {
    name: "KTL607 not raised with externalTrafficPolicy Local (client IP kept)",
    docs: [
      WEB_A,
      WEB_B,
      service(
        "type: NodePort\nexternalTrafficPolicy: Local\nselector: {app: web}\nports: [{port: 80, targetPort: http}]",
      ),
      policy(
        "podSelector: {matchLabels: {app: web}}\ningress: [{from: [{ipBlock: {cidr: 203.0.113.0/24}}]}]",
      ),
    ],
    want: [],
    absent: "KTL607",
  },
  {
    name: "KTL608 trafficDistribution PreferClose with backends in one zone only",
    docs: [
      WEB_A,
      service(
        "trafficDistribution: PreferClose\nselector: {app: web}\nports: [{port: 80, targetPort: http}]",
      ),
    ],
    want: ["KTL608 spec.trafficDistribution"],
  },
  {
    name: "KTL608 not raised with a backend in every zone",
    docs: [
      WEB_A,
      WEB_B,
      service(
        "trafficDistribution: PreferClose\nselector: {app: web}\nports: [{port: 80, targetPort: http}]",
      ),
    ],
    want: [],
    absent: "KTL608",
  },
  {
    name: "KTL608 topology-mode Auto where the EndpointSlice controller sets no hints (too few endpoints for the zones)",
    docs: [
      WEB_A,
      service("selector: {app: web}\nports: [{port: 80, targetPort: http}]").replace(
        "namespace: shop}",
        "namespace: shop, annotations: {service.kubernetes.io/topology-mode: Auto}}",
      ),
    ],
    want: ["KTL608 metadata.annotations[service.kubernetes.io/topology-mode]"],
  },
  {
    name: "KTL604 reads hand-written EndpointSlices of a Service without selector",
    docs: [
      service("type: NodePort\nexternalTrafficPolicy: Local\nports: [{port: 80}]"),
      `apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: web-1, namespace: shop, labels: {kubernetes.io/service-name: web}}\naddressType: IPv4\nendpoints: [{addresses: [10.244.1.50], nodeName: node-a}]\nports: [{port: 80}]`,
    ],
    want: ["KTL604 spec.externalTrafficPolicy"],
  },
  {
    name: "KTL609 a static clusterIP in the allocator's dynamic band (KEP-3070)",
    docs: [
      WEB_A,
      service("clusterIP: 10.100.0.10\nselector: {app: web}\nports: [{port: 80, targetPort: http}]"),
    ],
    want: ["KTL609 spec.clusterIP"],
  },
  {
    name: "KTL609 not raised for an address in the static band",
    docs: [
      WEB_A,
      service("clusterIP: 10.96.0.10\nselector: {app: web}\nports: [{port: 80, targetPort: http}]"),
    ],
    want: [],
    absent: "KTL609",
  },
  {
    name: "KTL609 a nodePort in the dynamic band (KEP-3668)",
    docs: [
      WEB_A,
      WEB_B,
      service("type: NodePort\nselector: {app: web}\nports: [{port: 80, targetPort: http, nodePort: 31000}]"),
    ],
    want: ["KTL609 spec.ports[0].nodePort"],
  },
  {
    name: "KTL609 not raised for a nodePort in the static band",
    docs: [
      WEB_A,
      WEB_B,
      service("type: NodePort\nselector: {app: web}\nports: [{port: 80, targetPort: http, nodePort: 30010}]"),
    ],
    want: [],
    absent: "KTL609",
  },
  {
    name: "KTL510 not raised for fields the Service type has",
    docs: [
      WEB_A,
      service(
        "selector: {app: web}\nports: [{name: http, port: 80, targetPort: http, appProtocol: http}]\ninternalTrafficPolicy: Cluster\npublishNotReadyAddresses: false",
      ),
    ],
    want: [],
    absent: "KTL510",
  },
  {
    name: "KTL610 a namespaceSelector in a rule that matches no namespace allows nothing (NetworkPolicyPeer)",
    docs: [
      WEB_A,
      NS_WEB,
      policy(
        "podSelector: {}\npolicyTypes: [Ingress]\ningress: [{from: [{namespaceSelector: {matchLabels: {team: web}}}]}]",
      ),
    ],
    want: ["KTL610 spec.ingress[0].from[0].namespaceSelector"],
  },
  {
    name: "KTL610 not raised when the namespaceSelector matches a namespace",
    docs: [
      WEB_A,
      NS_WEB,
      policy(
        "podSelector: {}\npolicyTypes: [Ingress]\ningress: [{from: [{namespaceSelector: {matchLabels: {team: storefront}}}]}]",
      ),
    ],
    want: [],
    absent: "KTL610",
  },
  {
    name: "KTL610 a podSelector in an egress rule that matches no pod of the policy's namespace",
    docs: [
      WEB_A,
      policy(
        "podSelector: {}\npolicyTypes: [Egress]\negress: [{to: [{podSelector: {matchLabels: {app: wbe}}}]}]",
      ),
    ],
    want: ["KTL610 spec.egress[0].to[0].podSelector"],
  },
  {
    name: "KTL610 a podSelector with a namespaceSelector looks in the selected namespaces only",
    docs: [
      WEB_A,
      NS_WEB,
      pod("dns", "node-a", "{k8s-app: kube-dns}", "[]", "storefront"),
      policy(
        "podSelector: {}\npolicyTypes: [Egress]\negress: [{to: [{namespaceSelector: {matchLabels: {team: storefront}}, podSelector: {matchLabels: {app: web}}}]}]",
      ),
    ],
    want: ["KTL610 spec.egress[0].to[0].podSelector"],
  },
  {
    name: "KTL610 not raised for ipBlock peers or for selectors that match",
    docs: [
      WEB_A,
      policy(
        "podSelector: {}\npolicyTypes: [Ingress]\ningress: [{from: [{ipBlock: {cidr: 10.0.0.0/8}}, {podSelector: {matchLabels: {app: web}}}]}]",
      ),
    ],
    want: [],
    absent: "KTL610",
  },
  {
    name: "KTL510 an unknown (misspelt) field",
    docs: [
      WEB_A,
      service("selector: {app: web}\nports: [{port: 80, targetPort: http}]\nexternalTraficPolicy: Local"),
    ],
    want: ["KTL510 spec.externalTraficPolicy"],
  },
];

describe("lint", () => {
  for (const c of cases) {
    it(c.name, () => {
      const got = codes(...c.docs);
      for (const w of c.want) expect(got).toContain(w);
      if (c.absent) expect(got.filter((g) => g.startsWith(c.absent!))).toEqual([]);
    });
  }

  it("findings become editor markers with their codes (validationDiagnostics)", () => {
    const r = validated(
      WEB_A,
      service("selector: {app: wbe}\nports: [{port: 80}]\nexternalTrafficPolicy: Local"),
    );
    const d = validationDiagnostics(r);
    expect(d).toContainEqual(
      expect.objectContaining({
        code: "KTL501",
        severity: "error",
        field: "spec.externalTrafficPolicy",
        file: "t.yaml",
      }),
    );
    expect(d).toContainEqual(
      expect.objectContaining({ code: "KTL602", severity: "warning", field: "spec.selector" }),
    );
  });

  it("a selector that matches nothing names the nearest object and the label it has instead", () => {
    const hint = (...docs: string[]) =>
      validateModel(loadModel([{ name: "t.yaml", text: [NODES, ...docs].join("\n---\n") }])).warnings.map(
        (w) => `${w.code}: ${w.hint}`,
      );
    expect(
      hint(
        WEB_A,
        NS_WEB,
        policy(
          "podSelector: {}\npolicyTypes: [Ingress]\ningress: [{from: [{namespaceSelector: {matchLabels: {team: web}}}]}]",
        ),
      ),
    ).toContainEqual(
      expect.stringMatching(
        /^KTL610: The nearest is namespace storefront: the selector asks for `team=web`; it has `team=storefront`/,
      ),
    );
    // The label exists under another key: kube-system has kubernetes.io/metadata.name=kube-system, not name=kube-system.
    expect(
      hint(
        WEB_A,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}",
        policy(
          "podSelector: {}\npolicyTypes: [Egress]\negress: [{to: [{namespaceSelector: {matchLabels: {name: kube-system}}}]}]",
        ),
      ),
    ).toContainEqual(
      expect.stringContaining(
        "namespace kube-system: the selector asks for `name=kube-system`; it has no label `name` but has `kubernetes.io/metadata.name=kube-system`",
      ),
    );
    expect(
      hint(WEB_A, policy("podSelector: {matchLabels: {app: wbe}}\npolicyTypes: [Ingress]")),
    ).toContainEqual(
      expect.stringContaining("pod shop/web-a: the selector asks for `app=wbe`; it has `app=web`"),
    );
    expect(hint(WEB_A, service("selector: {app: wbe, tier: x}\nports: [{port: 80}]"))).toContainEqual(
      expect.stringContaining(
        "pod shop/web-a: the selector asks for `app=wbe`; it has `app=web` and `tier=x`; it has no label `tier`",
      ),
    );
  });

  it("judges a selector written in many policies per namespace it looks in, each warning at its own policy (the checks keep one answer per selector)", () => {
    const peer =
      "podSelector: {}\npolicyTypes: [Egress]\negress: [{to: [{podSelector: {matchLabels: {app: web}}}]}]";
    const own = "podSelector: {matchLabels: {app: api}}\npolicyTypes: [Ingress]";
    const r = validated(
      WEB_A,
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: other}",
      pod("api", "node-a", "{app: api}", "[]", "other"),
      policy(peer, "a", "shop"),
      policy(peer, "b", "other"),
      policy(peer, "c", "other"),
      policy(own, "d", "shop"),
      policy(own, "e", "other"),
      policy(own, "f", "shop"),
    );
    const got = r.warnings
      .filter((w) => w.code === "KTL610" || w.code === "KTL601")
      .map((w) => `${w.code} ${w.namespace}/${w.name} ${w.field}`);
    // app=web runs in shop only: the peer of "b" and "c" (namespace other) matches nothing, "a"'s does.
    // app=api runs in other only: the policies "d" and "f" (namespace shop) select nothing, "e" does.
    expect(got.sort()).toEqual([
      "KTL601 shop/d spec.podSelector",
      "KTL601 shop/f spec.podSelector",
      "KTL610 other/b spec.egress[0].to[0].podSelector",
      "KTL610 other/c spec.egress[0].to[0].podSelector",
    ]);
    const hints = r.warnings.filter((w) => w.code === "KTL610").map((w) => w.hint);
    expect(hints[0]).toBe(hints[1]);
    // The nearest pods are looked for where the peer looks: namespace other.
    expect(hints[0]).toContain("pod other/api");
  });

  it("every warning carries a line, a hint and a code", () => {
    const r = validateModel(
      loadModel([
        {
          name: "t.yaml",
          text: [NODES, WEB_A, service("selector: {app: wbe}\nports: [{port: 80}]")].join("\n---\n"),
        },
      ]),
    );
    expect(r.warnings.length).toBeGreaterThan(0);
    for (const w of r.warnings) {
      expect(w.line).toBeGreaterThan(0);
      expect(w.hint.length).toBeGreaterThan(10);
      expect(w.code).toMatch(/^KTL[56]\d\d$/);
      expect(w.type).toBe("Warning");
    }
  });
});

describe("KTL602 when the selected pods run nowhere", () => {
  const pending = `apiVersion: v1\nkind: Pod\nmetadata: {name: web-p, namespace: shop, labels: {app: web}}\nspec: {nodeSelector: {kubernetes.io/os: windows}, containers: [{name: c, image: x, ports: [{name: http, containerPort: 8080}]}]}`;
  it("says the selector matches a Pending pod instead of suggesting another app's labels", () => {
    const r = validateModel(
      loadModel([
        {
          name: "t.yaml",
          text: [NODES, CLIENT_B, pending, service("selector: {app: web}\nports: [{port: 80}]")].join(
            "\n---\n",
          ),
        },
      ]),
    );
    const w = r.warnings.find((x) => x.code === "KTL602")!;
    expect(w.detail).toContain("matches shop/web-p, but that pod is not an endpoint");
    expect(w.detail).toContain("it has no IP (Pending)");
    expect(w.hint).not.toContain("app: client");
  });
  it("a Node that omits kubelet's OS labels still carries them (updateDefaultLabels): beta.kubernetes.io/os selects it", () => {
    const text = [
      NODES,
      pending.replace("kubernetes.io/os: windows", "beta.kubernetes.io/os: linux"),
      service("selector: {app: web}\nports: [{port: 80}]"),
    ].join("\n---\n");
    const model = loadModel([{ name: "t.yaml", text }]);
    expect(model.pods.find((p) => p.name === "web-p")?.ips.length).toBe(1);
    expect(validateModel(model).warnings.map((x) => x.code)).not.toContain("KTL602");
  });
});
