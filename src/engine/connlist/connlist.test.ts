import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { explainPair } from "../netpol/index.ts";
import { computeConnlist, probeIntervals, probeStarts, type ConnList } from "./index.ts";
import { formatConnlist } from "./format.ts";

const list = (text: string): ConnList => computeConnlist(loadModel([{ name: "in.yaml", text }]));
const txt = (text: string) => formatConnlist(list(text), "txt").split("\n").filter(Boolean);

const deploy = (name: string, labels: string, extra = "", ns = "default") => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 2
  template:
    metadata: {labels: ${labels}}
    spec:
${extra}      containers: [{name: c, image: i, ports: [{containerPort: 8080, name: http}, {containerPort: 53, protocol: UDP, name: dns}]}]
---
`;

describe("connlist: netpol-analyzer's conventions as a view (README 'What the analyzer models')", () => {
  it("no policies: N(N-1) workload lines plus 2N IP lines, no self pair though replicas could talk (minikube_resources, item 19)", () => {
    const lines = txt(deploy("a", "{app: a}") + deploy("b", "{app: b}") + deploy("c", "{app: c}"));
    expect(lines).toHaveLength(3 * 2 + 2 * 3);
    expect(lines.every((l) => l.endsWith(": All Connections"))).toBe(true);
    expect(lines.filter((l) => /^(\S+) => \1 /.test(l))).toEqual([]);
  });

  it("netpol-analysis-example-minimal: IP nodes count only the workload's side; ports merge per pair", () => {
    const lines = txt(
      deploy("frontend", "{app: frontend}") +
        deploy("backend", "{app: backend}") +
        `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec: {podSelector: {}, policyTypes: [Ingress, Egress]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: frontend}
spec:
  podSelector: {matchLabels: {app: frontend}}
  ingress: [{ports: [{port: 8080}]}]
  egress:
  - ports: [{port: 53, protocol: UDP}]
  - to: [{podSelector: {matchLabels: {app: backend}}}]
    ports: [{port: 9090}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: backend}
spec:
  podSelector: {matchLabels: {app: backend}}
  ingress: [{from: [{podSelector: {matchLabels: {app: frontend}}}], ports: [{port: 9090}]}]
`,
    );
    expect(lines).toEqual([
      "0.0.0.0-255.255.255.255[External] => default/frontend[Deployment] : TCP 8080",
      "default/frontend[Deployment] => 0.0.0.0-255.255.255.255[External] : UDP 53",
      "default/frontend[Deployment] => default/backend[Deployment] : TCP 9090",
    ]);
  });

  it("ipBlock 0.0.0.0/0 never matches a pod in connlist, while reach (upstream) matches the pod IP (item 6)", () => {
    const text =
      deploy("a", "{app: a}") +
      deploy("b", "{app: b}") +
      `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: from-anywhere}
spec:
  podSelector: {matchLabels: {app: b}}
  ingress: [{from: [{ipBlock: {cidr: 0.0.0.0/0}}], ports: [{port: 8080}]}]
`;
    const lines = txt(text);
    expect(lines).toContain("0.0.0.0-255.255.255.255[External] => default/b[Deployment] : TCP 8080");
    expect(lines.some((l) => l.startsWith("default/a[Deployment] => default/b"))).toBe(false);
    const m = loadModel([{ name: "in.yaml", text }]);
    const a = m.pods.find((p) => p.workload.name === "a")!,
      b = m.pods.find((p) => p.workload.name === "b")!;
    expect(explainPair(m, a, b, 8080, "TCP").allowed).toBe(true);
  });

  it("hostNetwork pods are under NetworkPolicy in connlist (ipblockstest, minikube_resources), outside it in reach (item 4)", () => {
    const text =
      deploy("host", "{app: host}", "      hostNetwork: true\n") +
      deploy("b", "{app: b}") +
      `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-host}
spec: {podSelector: {matchLabels: {app: host}}, policyTypes: [Ingress]}
`;
    const lines = txt(text);
    expect(lines.filter((l) => l.includes("=> default/host"))).toEqual([]);
    const m = loadModel([{ name: "in.yaml", text }]);
    const host = m.pods.find((p) => p.workload.name === "host")!,
      b = m.pods.find((p) => p.workload.name === "b")!;
    expect(explainPair(m, b, host, 8080, "TCP").allowed).toBe(true);
  });

  it("test_with_named_ports: a named port resolves on the destination with its protocol; other workloads get nothing", () => {
    const lines = txt(
      deploy("dns", "{app: dns}") +
        deploy("other", "{app: other}").replace(
          "ports: [{containerPort: 8080, name: http}, {containerPort: 53, protocol: UDP, name: dns}]",
          "ports: []",
        ) +
        `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: named}
spec:
  podSelector: {}
  ingress: [{ports: [{port: dns, protocol: UDP}, {port: http}, {port: dns}]}]
`,
    );
    expect(lines.filter((l) => l.includes("=> default/"))).toEqual([
      "0.0.0.0-255.255.255.255[External] => default/dns[Deployment] : TCP 8080,UDP 53",
      "default/other[Deployment] => default/dns[Deployment] : TCP 8080,UDP 53",
    ]);
  });

  it("with_end_port_example: port 1 with endPort 65535 on all three protocols is All Connections", () => {
    const lines = txt(
      deploy("a", "{app: a}") +
        deploy("b", "{app: b}") +
        `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: range}
spec:
  podSelector: {}
  ingress: [{ports: [{port: 1, endPort: 65535, protocol: TCP}, {port: 1, endPort: 65535, protocol: UDP}, {port: 1, endPort: 65535, protocol: SCTP}]}]
`,
    );
    expect(lines).toContain("default/a[Deployment] => default/b[Deployment] : All Connections");
  });
});

describe("connlist: exact port sets from one probe per interval (README 'Using these cases with a pod-level engine')", () => {
  it("bounds are 1, every port and port+1, endPort+1, and named ports as the workloads resolve them", () => {
    const m = loadModel([
      {
        name: "in.yaml",
        text:
          deploy("a", "{app: a}") +
          `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p}
spec:
  podSelector: {}
  ingress: [{ports: [{port: 80}, {port: 1000, endPort: 2000}, {port: http}, {port: dns, protocol: UDP}]}]
`,
      },
    ]);
    const pods = m.pods.slice(0, 1);
    const starts = probeStarts(m.policies, pods);
    expect(starts).toEqual({ TCP: [1, 80, 81, 1000, 2001, 8080, 8081], UDP: [1, 53, 54], SCTP: [1] });
    expect(probeIntervals(starts.UDP)).toEqual([
      [1, 52],
      [53, 53],
      [54, 65535],
    ]);
  });
});

describe("connlist: {ingress-controller} lines (README items 14-18)", () => {
  const svc = (name: string, selector: string, ports: string, ns = "default") => `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${ns}}
spec: {selector: ${selector}, ports: ${ports}}
---
`;

  it("acs-security-demos: a Route's targetPort name matches the Service port of that name and reaches its targetPort", () => {
    const lines = txt(
      deploy("webapp", "{app: webapp}") +
        svc("webapp-service", "{app: webapp}", "[{name: http, port: 80, targetPort: 8080}]") +
        `apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: webapp}
spec: {to: {kind: Service, name: webapp-service}, port: {targetPort: http}}
`,
    );
    expect(lines.filter((l) => l.startsWith("{"))).toEqual([
      "{ingress-controller} => default/webapp[Deployment] : TCP 8080",
    ]);
  });

  it("multiple_ingress_objects_with_different_ports: ports from several Ingresses are unioned", () => {
    const ingress = (name: string, port: number) => `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ${name}}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: ${port}}}}}]}}]
---
`;
    const d = deploy("web", "{app: web}").replace(
      "[{containerPort: 8080, name: http}, {containerPort: 53, protocol: UDP, name: dns}]",
      "[{containerPort: 8000}, {containerPort: 8050}, {containerPort: 8090}]",
    );
    const lines = txt(
      d +
        svc("web", "{app: web}", "[{port: 8000}, {port: 8050}, {port: 8090}]") +
        ingress("i1", 8090) +
        ingress("i2", 8050),
    );
    expect(lines.filter((l) => l.startsWith("{"))).toEqual([
      "{ingress-controller} => default/web[Deployment] : TCP 8050,8090",
    ]);
  });

  it("acs_security_frontend_demos: default deny removes the line, with a warning; a podSelector-only rule does not admit the controller", () => {
    const r = list(
      deploy("webapp", "{app: webapp}") +
        svc("webapp-service", "{app: webapp}", "[{name: http, port: 80, targetPort: 8080}]") +
        `apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: webapp}
spec: {to: {name: webapp-service}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: same-ns-only}
spec:
  podSelector: {}
  ingress: [{from: [{podSelector: {}}]}]
`,
    );
    expect(r.lines.filter((l) => l.src === "{ingress-controller}")).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["KTL702"]);
  });

  it("a namespaceSelector: {} rule admits the stand-in controller pod", () => {
    const lines = txt(
      deploy("webapp", "{app: webapp}") +
        svc("webapp-service", "{app: webapp}", "[{name: http, port: 80, targetPort: http}]") +
        `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec: {defaultBackend: {service: {name: webapp-service, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: any-ns}
spec:
  podSelector: {}
  ingress: [{from: [{namespaceSelector: {}}]}]
`,
    );
    expect(lines.filter((l) => l.startsWith("{"))).toEqual([
      "{ingress-controller} => default/webapp[Deployment] : TCP 8080",
    ]);
  });
});

describe("connlist output formats (netpol-analyzer docs/connlist_output.md)", () => {
  const r = list(deploy("a", "{app: a}") + deploy("b", "{app: b}", "", "other"));

  it("txt lines are byte-sorted: IP nodes first", () => {
    const lines = formatConnlist(r, "txt").split("\n").filter(Boolean);
    expect(lines).toEqual([...lines].sort());
    expect(lines[0]).toMatch(/^0\.0\.0\.0-255\.255\.255\.255\[External\] => /);
  });

  it("json is an array of {src, dst, conn}", () => {
    expect(JSON.parse(formatConnlist(r, "json"))[0]).toEqual({
      src: "0.0.0.0-255.255.255.255[External]",
      dst: "default/a[Deployment]",
      conn: "All Connections",
    });
  });

  it("md is a src | dst | conn table", () => {
    const md = formatConnlist(r, "md").split("\n");
    expect(md.slice(0, 3)).toEqual([
      "| src | dst | conn |",
      "|-----|-----|------|",
      "| 0.0.0.0-255.255.255.255[External] | default/a[Deployment] | All Connections |",
    ]);
  });

  it("dot groups workloads by namespace and labels edges with the connections", () => {
    const dot = formatConnlist(r, "dot");
    expect(dot).toMatch(
      /^digraph \{\n\tsubgraph "cluster_default" \{\n\t\t"default\/a\[Deployment\]" \[label="a\[Deployment\]"/,
    );
    expect(dot).toContain(
      '\t"default/a[Deployment]" -> "other/b[Deployment]" [label="All Connections" color="gold2" fontcolor="darkgreen"]',
    );
    expect(dot.trimEnd().endsWith("}")).toBe(true);
  });

  it("an input with no workload prints nothing at all (acs_security_frontend_demos has 0 bytes)", () => {
    expect(formatConnlist(list("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"), "txt")).toBe("");
  });
});

describe("connlist asks the one decider: CNI dialects and the profile apply as in reach and trace", () => {
  const server = (ns: string, name: string, labels: string, port = 8080) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {matchLabels: {${labels}}}
  template:
    metadata: {labels: {${labels}}}
    spec: {containers: [{name: c, image: x, ports: [{name: http, containerPort: ${port}}]}]}`;
  const workloads = [
    server("shop", "api", "app: api"),
    server("shop", "web", "app: web"),
    server("shop", "batch", "app: batch"),
  ];
  const lines = (text: string, cni?: "flannel") =>
    computeConnlist(loadModel([{ name: "c.yaml", text }], cni ? { cni } : {})).lines.map(
      (l) => `${l.src} => ${l.dst} : ${l.conn}`,
    );
  it.each([
    [
      "CiliumNetworkPolicy: fromEndpoints with toPorts 8080-8081 (Documentation/security/policy/language.rst 'Layer 4')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: api, namespace: shop}\nspec:\n  endpointSelector: {matchLabels: {app: api}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {app: web}}]\n    toPorts: [{ports: [{port: "8080", endPort: 8081, protocol: TCP}]}]`,
      ["shop/web[Deployment] => shop/api[Deployment] : TCP 8080-8081"],
      [
        "shop/batch[Deployment] => shop/api[Deployment]",
        "0.0.0.0-255.255.255.255[External] => shop/api[Deployment]",
      ],
    ],
    [
      "Calico NetworkPolicy: Allow from app == 'web' on ports 8080:8090 (reference/resources/networkpolicy 'Rule', 'Ports')",
      `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: api, namespace: shop}\nspec:\n  selector: app == 'api'\n  types: [Ingress]\n  ingress:\n  - action: Allow\n    protocol: TCP\n    source: {selector: app == 'web'}\n    destination: {ports: ["8080:8090"]}`,
      ["shop/web[Deployment] => shop/api[Deployment] : TCP 8080-8090"],
      ["shop/batch[Deployment] => shop/api[Deployment]"],
    ],
    [
      "Cilium toCIDR cuts the address space (language.rst 'IP/CIDR based')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: api, namespace: shop}\nspec:\n  endpointSelector: {matchLabels: {app: api}}\n  egress:\n  - toCIDR: [192.0.2.0/24]`,
      ["shop/api[Deployment] => 192.0.2.0-192.0.2.255[External] : All Connections"],
      [
        "shop/api[Deployment] => shop/web[Deployment]",
        "shop/api[Deployment] => 0.0.0.0-192.0.1.255[External]",
      ],
    ],
  ])("%s", (_, policy, present, absent) => {
    const got = lines([...workloads, policy].join("\n---\n"));
    for (const l of present) expect(got).toContain(l);
    for (const a of absent) expect(got.filter((l) => l.startsWith(a))).toEqual([]);
  });

  it("flannel enforces nothing: a deny-all leaves every workload pair connected (flannel's README)", () => {
    const denyAll = `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: shop}\nspec: {podSelector: {}, policyTypes: [Ingress, Egress]}`;
    const text = [...workloads, denyAll].join("\n---\n");
    expect(lines(text).filter((l) => !l.includes("[External]"))).toEqual([]);
    expect(lines(text, "flannel")).toContain(
      "shop/web[Deployment] => shop/api[Deployment] : All Connections",
    );
  });
});
