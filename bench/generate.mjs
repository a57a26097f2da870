// Seeded generator of realistic clusters for `npm run bench`.
//
// A cluster is a set of teams, each with a few namespaces (env prod, staging,
// dev); each namespace runs apps of five tiers with named container ports:
//   web     http 8080, metrics 9090                      (Deployment, Service)
//   api     http 8080, grpc 9000, metrics 9090           (Deployment, Service)
//   worker  admin 8000, metrics 9090                     (Deployment)
//   db      postgres 5432, metrics 9187                  (StatefulSet, Service)
//   cache   redis 6379, metrics 9121                     (Deployment, Service)
// plus the platform: CoreDNS in kube-system, an ingress controller in
// ingress-nginx, Prometheus and a hostNetwork node-exporter DaemonSet in
// monitoring. Every team namespace gets the policies platform teams write:
// default deny both ways, DNS egress, ingress-controller and monitoring
// allowances, tier-to-tier ingress and egress, cross-team access by namespace
// labels, matchExpressions, egress to the internet as ipBlock with except,
// port ranges with endPort, and per-app rules to fill the tier's count.
// The L and XL clusters add what a platform team puts above and below those
// (network-policy-api ClusterNetworkPolicy v1alpha2, tens of policies): Admin
// guards (DNS and monitoring accepted, the cloud metadata address and
// dev-to-prod denied, each team's own namespaces passed down to their
// NetworkPolicies), and a Baseline default deny for the team namespaces.
//
// Layouts: "workloads" writes Deployments/StatefulSets/DaemonSets (the model
// expands them into pods); "pods" writes every pod explicitly with its node
// and IP, as `kubectl get pods -o yaml` would list them.
//
// Usage: node bench/generate.mjs TIER [SEED] > cluster.yaml

/** Bump when the output changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 5;
export const DEFAULT_SEED = 20240601;

/** Cluster tiers. Pod counts are approximate; `describe` prints the exact ones. */
export const TIERS = {
  S: {
    layout: "workloads",
    teams: 4,
    nsPerTeam: 2,
    appsPerNs: 8,
    replicas: [1, 5],
    servicesPerNs: 5,
    policiesPerNs: 8,
    nodes: 4,
  },
  M: {
    layout: "workloads",
    teams: 10,
    nsPerTeam: 4,
    appsPerNs: 10,
    replicas: [2, 8],
    servicesPerNs: 8,
    policiesPerNs: 20,
    nodes: 24,
  },
  L: {
    layout: "pods",
    teams: 25,
    nsPerTeam: 4,
    appsPerNs: 20,
    replicas: [2, 8],
    servicesPerNs: 14,
    policiesPerNs: 30,
    nodes: 100,
    clusterPolicies: true,
  },
  XL: {
    layout: "workloads",
    teams: 100,
    nsPerTeam: 10,
    appsPerNs: 15,
    replicas: [10, 10],
    servicesPerNs: 10,
    policiesPerNs: 75,
    nodes: 1500,
    clusterPolicies: true,
  },
};

/** Inputs built to hurt: each isolates one cost. */
export const ADVERSARIAL = {
  // 10,000 policies in one namespace, every one with an empty podSelector: each selects every pod.
  "adv-select-all": {
    layout: "workloads",
    teams: 1,
    nsPerTeam: 1,
    appsPerNs: 200,
    replicas: [10, 10],
    servicesPerNs: 50,
    policiesPerNs: 10000,
    nodes: 24,
    selectAll: true,
    noPlatform: true,
  },
  // The XL cluster with ingress rules only: nothing isolates egress, so every source reaches every open destination.
  "adv-ingress-only": { ...TIERS.XL, ingressOnly: true },
  // The L cluster without a single policy: nothing is isolated, every pair is allowed.
  "adv-no-policy": { ...TIERS.L, policiesPerNs: 0 },
  // 100-port Services, policies with endPort ranges and named ports, and named ports whose numbers differ per pod:
  // no two pods share a port set, so every pod is its own class.
  "adv-ports": {
    layout: "pods",
    teams: 5,
    nsPerTeam: 2,
    appsPerNs: 10,
    replicas: [20, 20],
    servicesPerNs: 10,
    policiesPerNs: 20,
    nodes: 24,
    manyPorts: 100,
  },
};

export const ALL = { ...TIERS, ...ADVERSARIAL };

// ---------- randomness ----------

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAFE = "bcdfghjklmnpqrstvwxz2456789";
const WORDS = [
  "payments",
  "checkout",
  "search",
  "catalog",
  "orders",
  "billing",
  "identity",
  "shipping",
  "inventory",
  "reviews",
  "pricing",
  "ledger",
  "fraud",
  "notify",
  "media",
  "profile",
  "cart",
  "loyalty",
  "reports",
  "gateway",
  "auth",
  "ads",
  "feeds",
  "chat",
  "maps",
  "quotes",
  "wallet",
  "tickets",
  "audit",
  "export",
];
const TIER_CYCLE = ["web", "api", "api", "worker", "db", "cache", "api", "worker"];
const ENVS = ["prod", "staging", "dev", "prod", "qa", "perf", "prod", "sandbox", "canary", "prod"];

const PORTS = {
  web: [
    ["http", 8080, "TCP"],
    ["metrics", 9090, "TCP"],
  ],
  api: [
    ["http", 8080, "TCP"],
    ["grpc", 9000, "TCP"],
    ["metrics", 9090, "TCP"],
  ],
  worker: [
    ["admin", 8000, "TCP"],
    ["metrics", 9090, "TCP"],
  ],
  db: [
    ["postgres", 5432, "TCP"],
    ["metrics", 9187, "TCP"],
  ],
  cache: [
    ["redis", 6379, "TCP"],
    ["metrics", 9121, "TCP"],
  ],
};

// ---------- the cluster plan ----------

/** Builds the plan (namespaces, apps, nodes) from a tier spec; no YAML yet. */
function plan(spec, seed) {
  const rand = mulberry32(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const between = ([lo, hi]) => lo + Math.floor(rand() * (hi - lo + 1));
  const suffix = (n) => {
    let s = "";
    for (let i = 0; i < n; i++) s += SAFE[Math.floor(rand() * SAFE.length)];
    return s;
  };
  const teams = [];
  for (let t = 0; t < spec.teams; t++) {
    const team =
      spec.teams <= WORDS.length
        ? WORDS[t]
        : `${WORDS[t % WORDS.length]}-${Math.floor(t / WORDS.length) + 1}`;
    teams.push(team);
  }
  const namespaces = [];
  for (const [ti, team] of teams.entries()) {
    for (let e = 0; e < spec.nsPerTeam; e++) {
      const env = ENVS[e % ENVS.length];
      const name =
        spec.nsPerTeam === 1 ? team : ENVS.indexOf(env) === e ? `${team}-${env}` : `${team}-${env}-${e}`;
      const apps = [];
      for (let a = 0; a < spec.appsPerNs; a++) {
        const tier = TIER_CYCLE[a % TIER_CYCLE.length];
        const word = WORDS[(ti * 7 + a * 3) % WORDS.length];
        const app = `${word}-${tier}${a >= TIER_CYCLE.length ? `-${Math.floor(a / TIER_CYCLE.length)}` : ""}`;
        apps.push({
          name: app,
          tier,
          replicas: between(spec.replicas),
          version: `v${1 + Math.floor(rand() * 3)}`,
          hash: suffix(10),
          kind: tier === "db" ? "StatefulSet" : "Deployment",
        });
      }
      namespaces.push({ name, team, env, apps, teamIndex: ti });
    }
  }
  const nodes = [];
  for (let i = 0; i < spec.nodes; i++) {
    nodes.push({
      name: `node-${String(i + 1).padStart(4, "0")}`,
      zone: `zone-${"abc"[i % 3]}`,
      ip: `172.20.${(i >> 8) & 255}.${(i & 255) + 1}`,
      cidr: `10.${64 + (i >> 8)}.${i & 255}.0/24`,
      next: 2,
    });
  }
  return { rand, pick, between, suffix, teams, namespaces, nodes };
}

// ---------- YAML writers ----------

const q = (s) =>
  /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|\d.*)$/i.test(s)
    ? s
    : JSON.stringify(s);

function labelsBlock(labels, indent) {
  const pad = " ".repeat(indent);
  return Object.entries(labels)
    .map(([k, v]) => `${pad}${q(k)}: ${q(v)}\n`)
    .join("");
}

function portsBlock(ports, indent) {
  const pad = " ".repeat(indent);
  return ports
    .map(
      ([name, port, proto]) =>
        `${pad}- name: ${name}\n${pad}  containerPort: ${port}\n${proto !== "TCP" ? `${pad}  protocol: ${proto}\n` : ""}`,
    )
    .join("");
}

function podLabels(ns, app) {
  return {
    app: app.name,
    tier: app.tier,
    team: ns.team,
    env: ns.env,
    version: app.version,
  };
}

function containerBlock(name, image, ports, indent) {
  const pad = " ".repeat(indent);
  return (
    `${pad}- name: ${name}\n${pad}  image: ${image}\n${pad}  resources:\n${pad}    requests: {cpu: 100m, memory: 128Mi}\n` +
    (ports.length ? `${pad}  ports:\n${portsBlock(ports, indent + 2)}` : "")
  );
}

function workloadDoc(kind, ns, name, labels, replicas, ports, extra = {}) {
  const sel = extra.selectorLabels ?? { app: labels.app ?? name };
  let s = `---\napiVersion: apps/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels:\n${labelsBlock(sel, 4)}spec:\n`;
  if (kind !== "DaemonSet") s += `  replicas: ${replicas}\n`;
  if (kind === "StatefulSet") s += `  serviceName: ${name}\n`;
  s += `  selector:\n    matchLabels:\n${labelsBlock(sel, 6)}  template:\n    metadata:\n      labels:\n${labelsBlock(labels, 8)}    spec:\n`;
  if (extra.hostNetwork) s += `      hostNetwork: true\n`;
  s += `      containers:\n${containerBlock(name, `registry.example.com/${ns}/${name}:1.${replicas}.0`, ports, 6)}`;
  return s;
}

function flowMap(labels) {
  return `{${Object.entries(labels)
    .map(([k, v]) => `${q(k)}: ${q(v)}`)
    .join(", ")}}`;
}

/** A pod as `kubectl get pods -o yaml` would list it, trimmed to what the engine reads, in compact flow style. */
function podDoc(ns, name, labels, ports, node, ip, owner, hostNetwork = false) {
  let s = `---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels: ${flowMap(labels)}\n`;
  if (owner) s += `  ownerReferences: [{kind: ${owner.kind}, name: ${owner.name}, controller: true}]\n`;
  s += `spec:\n  nodeName: ${node.name}\n`;
  if (hostNetwork) s += `  hostNetwork: true\n`;
  s += `  containers:\n  - name: app\n    image: registry.example.com/${labels.app ?? "app"}:1.0\n`;
  if (ports.length)
    s += `    ports: [${ports.map(([n, port, proto]) => `{name: ${n}, containerPort: ${port}${proto !== "TCP" ? `, protocol: ${proto}` : ""}}`).join(", ")}]\n`;
  s += `status: {phase: Running, podIP: ${ip}, conditions: [{type: Ready, status: "True"}]}\n`;
  return s;
}

function serviceDoc(ns, name, selector, ports) {
  let s = `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  selector:\n${labelsBlock(selector, 4)}  ports:\n`;
  for (const [pname, target, proto, port] of ports) {
    s += `  - name: ${pname}\n    port: ${port ?? target}\n    targetPort: ${pname}\n${proto !== "TCP" ? `    protocol: ${proto}\n` : ""}`;
  }
  return s;
}

// ---------- policies ----------

const EXTERNAL = [
  "203.0.113.0/24",
  "198.51.100.0/24",
  "192.0.2.0/24",
  "100.64.0.0/10",
  "151.101.0.0/16",
  "140.82.112.0/20",
  "52.0.0.0/8",
  "35.190.0.0/16",
];

function matchLabelsYaml(labels, indent) {
  return `${" ".repeat(indent)}matchLabels:\n${labelsBlock(labels, indent + 2)}`;
}

function policyDoc(ns, name, body) {
  return `---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n${body}`;
}

/** The policies of one team namespace, cut or filled to `count`. */
function namespacePolicies(p, ns, count, spec) {
  if (count <= 0) return [];
  const out = [];
  const push = (name, body) => {
    if (spec.ingressOnly) {
      // Ingress-only clusters (many are): no policy isolates egress.
      if (body.includes("policyTypes: [Egress]")) return;
      body = body
        .replace("policyTypes: [Ingress, Egress]", "policyTypes: [Ingress]")
        .replace(/\n {2}egress:\n[\s\S]*$/, "\n");
    }
    out.push(policyDoc(ns.name, name, body));
  };
  const { rand, pick } = p;
  const apps = ns.apps;
  if (spec.selectAll) {
    // Every policy selects every pod of the namespace; rules vary so nothing collapses.
    for (let i = 0; i < count; i++) {
      const a = apps[i % apps.length];
      const b = apps[(i * 7 + 3) % apps.length];
      const port = 8000 + (i % 50) * 10;
      const kind = i % 4;
      let body = `  podSelector: {}\n`;
      if (kind === 0)
        body += `  ingress:\n  - from:\n    - podSelector:\n${matchLabelsYaml({ app: a.name }, 8)}    ports:\n    - port: ${port}\n`;
      else if (kind === 1)
        body += `  policyTypes: [Ingress, Egress]\n  egress:\n  - to:\n    - podSelector:\n${matchLabelsYaml({ app: b.name }, 8)}    ports:\n    - {port: ${port}, endPort: ${port + 9}}\n`;
      else if (kind === 2)
        body += `  ingress:\n  - from:\n    - podSelector:\n        matchExpressions:\n        - {key: tier, operator: In, values: [${a.tier}, ${b.tier}]}\n        - {key: version, operator: NotIn, values: [v${1 + (i % 3)}]}\n    ports:\n    - port: ${pick(["http", "metrics", "grpc"])}\n`;
      else
        body += `  ingress:\n  - from:\n    - ipBlock:\n        cidr: ${EXTERNAL[i % EXTERNAL.length]}\n        except: [${EXTERNAL[i % EXTERNAL.length].replace(/\.0\/\d+$/, ".128/25")}]\n`;
      push(`all-${String(i).padStart(5, "0")}`, body);
    }
    return out;
  }
  push("default-deny", `  podSelector: {}\n  policyTypes: [Ingress, Egress]\n`);
  push(
    "allow-dns",
    `  podSelector: {}\n  policyTypes: [Egress]\n  egress:\n  - to:\n    - namespaceSelector:\n${matchLabelsYaml({ "kubernetes.io/metadata.name": "kube-system" }, 8)}      podSelector:\n${matchLabelsYaml({ "k8s-app": "kube-dns" }, 8)}    ports:\n    - {port: 53, protocol: UDP}\n    - {port: 53, protocol: TCP}\n`,
  );
  push(
    "allow-ingress-controller",
    `  podSelector:\n${matchLabelsYaml({ tier: "web" }, 4)}  ingress:\n  - from:\n    - namespaceSelector:\n${matchLabelsYaml({ "kubernetes.io/metadata.name": "ingress-nginx" }, 8)}      podSelector:\n${matchLabelsYaml({ app: "ingress-nginx" }, 8)}    ports:\n    - port: http\n`,
  );
  push(
    "allow-monitoring",
    `  podSelector:\n    matchExpressions:\n    - {key: app, operator: Exists}\n  ingress:\n  - from:\n    - namespaceSelector:\n        matchExpressions:\n        - {key: kubernetes.io/metadata.name, operator: In, values: [monitoring]}\n      podSelector:\n${matchLabelsYaml({ app: "prometheus" }, 8)}    ports:\n    - port: metrics\n`,
  );
  push(
    "web-to-api",
    `  podSelector:\n${matchLabelsYaml({ tier: "web" }, 4)}  policyTypes: [Egress]\n  egress:\n  - to:\n    - podSelector:\n${matchLabelsYaml({ tier: "api" }, 8)}    ports:\n    - port: 8080\n    - port: grpc\n`,
  );
  push(
    "api-from-web",
    `  podSelector:\n${matchLabelsYaml({ tier: "api" }, 4)}  policyTypes: [Ingress]\n  ingress:\n  - from:\n    - podSelector:\n${matchLabelsYaml({ tier: "web" }, 8)}    - podSelector:\n        matchExpressions:\n        - {key: tier, operator: In, values: [api, worker]}\n        - {key: env, operator: NotIn, values: [dev]}\n    ports:\n    - port: http\n    - port: 9000\n`,
  );
  push(
    "data-from-backends",
    `  podSelector:\n    matchExpressions:\n    - {key: tier, operator: In, values: [db, cache]}\n  ingress:\n  - from:\n    - podSelector:\n        matchExpressions:\n        - {key: tier, operator: In, values: [api, worker]}\n    ports:\n    - port: 5432\n    - port: 6379\n`,
  );
  push(
    "backends-to-data",
    `  podSelector:\n    matchExpressions:\n    - {key: tier, operator: In, values: [api, worker]}\n  policyTypes: [Egress]\n  egress:\n  - to:\n    - podSelector:\n        matchExpressions:\n        - {key: tier, operator: In, values: [db, cache]}\n    ports:\n    - port: postgres\n    - port: redis\n`,
  );
  push(
    "egress-internet",
    `  podSelector:\n    matchExpressions:\n    - {key: tier, operator: In, values: [api, worker]}\n    - {key: team, operator: Exists}\n  policyTypes: [Egress]\n  egress:\n  - to:\n    - ipBlock:\n        cidr: 0.0.0.0/0\n        except: [10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16]\n    ports:\n    - port: 443\n`,
  );
  push(
    "cross-team-api",
    `  podSelector:\n${matchLabelsYaml({ tier: "api" }, 4)}  ingress:\n  - from:\n    - namespaceSelector:\n${matchLabelsYaml({ team: p.teams[(ns.teamIndex + 1) % p.teams.length], env: ns.env }, 8)}      podSelector:\n${matchLabelsYaml({ tier: "api" }, 8)}    ports:\n    - port: http\n`,
  );
  push(
    "worker-port-range",
    `  podSelector:\n${matchLabelsYaml({ tier: "worker" }, 4)}  policyTypes: [Egress]\n  egress:\n  - to:\n    - namespaceSelector:\n        matchExpressions:\n        - {key: env, operator: In, values: [${ns.env}]}\n    ports:\n    - {port: 8000, endPort: 8999}\n    - {port: 30000, endPort: 32767, protocol: UDP}\n`,
  );
  push("kubelet-probes", `  podSelector: {}\n  ingress:\n  - from:\n    - ipBlock: {cidr: 172.20.0.0/16}\n`);
  // Per-app rules until the count is reached.
  let i = 0;
  while (out.length < count) {
    const a = apps[i % apps.length];
    const b = apps[(i * 5 + 1) % apps.length];
    const round = Math.floor(i / apps.length);
    const portOf = (app) => PORTS[app.tier][0];
    const variant = (i + round) % 6;
    let body;
    if (variant === 0) {
      body = `  podSelector:\n${matchLabelsYaml({ app: a.name }, 4)}  ingress:\n  - from:\n    - podSelector:\n${matchLabelsYaml({ app: b.name }, 8)}    ports:\n    - port: ${portOf(a)[0]}\n`;
    } else if (variant === 1) {
      body = `  podSelector:\n${matchLabelsYaml({ app: a.name }, 4)}  policyTypes: [Egress]\n  egress:\n  - to:\n    - podSelector:\n${matchLabelsYaml({ app: b.name }, 8)}    ports:\n    - port: ${portOf(b)[1]}\n`;
    } else if (variant === 2) {
      const cidr = EXTERNAL[(i + round) % EXTERNAL.length];
      body = `  podSelector:\n${matchLabelsYaml({ app: a.name }, 4)}  policyTypes: [Egress]\n  egress:\n  - to:\n    - ipBlock:\n        cidr: ${cidr}\n        except:\n        - ${cidr.replace(/\.\d+\/\d+$/, ".64/26")}\n    ports:\n    - port: 443\n    - {port: 8443, endPort: 8450}\n`;
    } else if (variant === 3) {
      const other = p.namespaces[Math.floor(rand() * p.namespaces.length)];
      body = `  podSelector:\n${matchLabelsYaml({ app: a.name }, 4)}  ingress:\n  - from:\n    - namespaceSelector:\n${matchLabelsYaml({ "kubernetes.io/metadata.name": other.name }, 8)}      podSelector:\n        matchExpressions:\n        - {key: tier, operator: In, values: [web, api]}\n    ports:\n    - port: ${portOf(a)[1]}\n      protocol: TCP\n`;
    } else if (variant === 4) {
      body = `  podSelector:\n    matchExpressions:\n    - {key: app, operator: In, values: [${a.name}, ${b.name}]}\n    - {key: version, operator: NotIn, values: [${a.version}]}\n  ingress:\n  - from:\n    - namespaceSelector:\n${matchLabelsYaml({ team: ns.team }, 8)}    ports:\n    - {port: 9000, endPort: 9100}\n`;
    } else {
      body = `  podSelector:\n${matchLabelsYaml({ app: a.name, tier: a.tier }, 4)}  policyTypes: [Ingress, Egress]\n  ingress:\n  - from:\n    - podSelector:\n        matchExpressions:\n        - {key: tier, operator: DoesNotExist}\n    - podSelector:\n${matchLabelsYaml({ tier: b.tier, version: b.version }, 8)}\n  egress:\n  - to:\n    - podSelector:\n${matchLabelsYaml({ app: b.name }, 8)}\n`;
    }
    push(`${a.name}-rule-${i}`, body);
    i++;
  }
  return out.slice(0, count);
}

/** The cluster tier policies of a platform team: tens, whatever the cluster's size. */
function clusterPolicies(p) {
  const out = [];
  const doc = (name, tier, priority, body) =>
    out.push(
      `---\napiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata:\n  name: ${name}\nspec:\n  tier: ${tier}\n  priority: ${priority}\n${body}`,
    );
  const teamNs = `  subject:\n    namespaces:\n      matchLabels:\n        app.kubernetes.io/managed-by: platform\n`;
  doc(
    "allow-dns",
    "Admin",
    1,
    `${teamNs}  egress:\n  - name: to-coredns\n    action: Accept\n    to:\n    - pods:\n        namespaceSelector:\n          matchLabels:\n            kubernetes.io/metadata.name: kube-system\n        podSelector:\n          matchLabels:\n            k8s-app: kube-dns\n    protocols:\n    - udp:\n        destinationPort:\n          number: 53\n    - tcp:\n        destinationPort:\n          number: 53\n`,
  );
  doc(
    "deny-metadata",
    "Admin",
    2,
    `${teamNs}  egress:\n  - name: cloud-metadata\n    action: Deny\n    to:\n    - networks:\n      - 169.254.169.254/32\n`,
  );
  doc(
    "allow-monitoring",
    "Admin",
    3,
    `${teamNs}  ingress:\n  - name: from-prometheus\n    action: Accept\n    from:\n    - pods:\n        namespaceSelector:\n          matchLabels:\n            kubernetes.io/metadata.name: monitoring\n        podSelector:\n          matchLabels:\n            app: prometheus\n    protocols:\n    - destinationNamedPort: metrics\n`,
  );
  doc(
    "isolate-prod-from-dev",
    "Admin",
    4,
    `  subject:\n    namespaces:\n      matchLabels:\n        env: prod\n  ingress:\n  - name: from-dev\n    action: Deny\n    from:\n    - namespaces:\n        matchLabels:\n          env: dev\n`,
  );
  // Each team's namespaces hand traffic among themselves to the team's NetworkPolicies (at most 30 teams: tens of policies).
  p.teams
    .slice(0, 30)
    .forEach((team, i) =>
      doc(
        `team-${team}`,
        "Admin",
        10 + i,
        `  subject:\n    namespaces:\n      matchLabels:\n        team: ${team}\n  ingress:\n  - name: same-team\n    action: Pass\n    from:\n    - namespaces:\n        matchLabels:\n          team: ${team}\n`,
      ),
    );
  doc(
    "default",
    "Baseline",
    0,
    `${teamNs}  ingress:\n  - name: from-ingress-controller\n    action: Accept\n    from:\n    - namespaces:\n        matchLabels:\n          kubernetes.io/metadata.name: ingress-nginx\n  - name: deny-the-rest\n    action: Deny\n    from:\n    - namespaces: {}\n`,
  );
  return out;
}

// ---------- the whole file ----------

/**
 * Generates one cluster. Returns the YAML text and what it holds.
 * @param {string|object} tier a name from ALL, or a spec object
 */
export function generate(tier, seed = DEFAULT_SEED) {
  const spec = typeof tier === "string" ? ALL[tier] : tier;
  if (!spec) throw new Error(`unknown tier ${tier}; one of ${Object.keys(ALL).join(", ")}`);
  const p = plan(spec, seed);
  const parts = [];
  const stats = { pods: 0, workloads: 0, services: 0, policies: 0, namespaces: 0, nodes: p.nodes.length };
  for (const n of p.nodes) {
    parts.push(
      `---\napiVersion: v1\nkind: Node\nmetadata:\n  name: ${n.name}\n  labels:\n    kubernetes.io/hostname: ${n.name}\n    kubernetes.io/os: linux\n    topology.kubernetes.io/zone: ${n.zone}\nspec:\n  podCIDR: ${n.cidr}\nstatus:\n  addresses:\n  - {type: InternalIP, address: ${n.ip}}\n  conditions:\n  - {type: Ready, status: "True"}\n`,
    );
  }
  let nodeCursor = 0;
  const nextNode = () => p.nodes[nodeCursor++ % p.nodes.length];
  const allocIP = (node) => {
    const [a, b, c] = node.cidr.split(".");
    return `${a}.${b}.${c}.${node.next++}`;
  };
  const explicit = spec.layout === "pods";
  // Emits a workload, or its pods when the layout is explicit.
  const emit = (kind, ns, name, labels, replicas, ports, extra = {}) => {
    stats.workloads++;
    if (!explicit) {
      parts.push(workloadDoc(kind, ns, name, labels, replicas, ports, extra));
      stats.pods += kind === "DaemonSet" ? p.nodes.length : replicas;
      return;
    }
    const hash = extra.hash ?? p.suffix(10);
    const targets = kind === "DaemonSet" ? p.nodes : Array.from({ length: replicas }, nextNode);
    targets.forEach((node, i) => {
      let podName, podLabels, owner;
      if (kind === "StatefulSet") {
        podName = `${name}-${i}`;
        podLabels = { ...labels, "statefulset.kubernetes.io/pod-name": podName };
        owner = { kind, name };
      } else if (kind === "DaemonSet") {
        podName = `${name}-${p.suffix(5)}`;
        podLabels = labels;
        owner = { kind, name };
      } else {
        podName = `${name}-${hash}-${p.suffix(5)}`;
        podLabels = { ...labels, "pod-template-hash": hash };
        owner = { kind: "ReplicaSet", name: `${name}-${hash}` };
      }
      const podPorts = extra.portsOf ? extra.portsOf(i) : ports;
      parts.push(
        podDoc(
          ns,
          podName,
          podLabels,
          podPorts,
          node,
          extra.hostNetwork ? node.ip : allocIP(node),
          owner,
          extra.hostNetwork,
        ),
      );
      stats.pods++;
    });
  };

  const nsDoc = (name, labels) => {
    stats.namespaces++;
    parts.push(
      `---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n  labels:\n${labelsBlock(labels, 4)}`,
    );
  };

  if (!spec.noPlatform) {
    nsDoc("kube-system", { "pod-security.kubernetes.io/enforce": "privileged" });
    emit(
      "Deployment",
      "kube-system",
      "coredns",
      { "k8s-app": "kube-dns" },
      2,
      [
        ["dns", 53, "UDP"],
        ["dns-tcp", 53, "TCP"],
        ["metrics", 9153, "TCP"],
      ],
      { selectorLabels: { "k8s-app": "kube-dns" } },
    );
    parts.push(
      serviceDoc("kube-system", "kube-dns", { "k8s-app": "kube-dns" }, [
        ["dns", 53, "UDP"],
        ["dns-tcp", 53, "TCP"],
        ["metrics", 9153, "TCP"],
      ]),
    );
    nsDoc("ingress-nginx", { "app.kubernetes.io/part-of": "platform" });
    emit(
      "Deployment",
      "ingress-nginx",
      "ingress-nginx-controller",
      { app: "ingress-nginx", "app.kubernetes.io/component": "controller" },
      3,
      [
        ["http", 80, "TCP"],
        ["https", 443, "TCP"],
        ["metrics", 10254, "TCP"],
      ],
    );
    parts.push(
      serviceDoc("ingress-nginx", "ingress-nginx-controller", { app: "ingress-nginx" }, [
        ["http", 80, "TCP"],
        ["https", 443, "TCP"],
      ]),
    );
    nsDoc("monitoring", { "app.kubernetes.io/part-of": "platform" });
    emit("StatefulSet", "monitoring", "prometheus", { app: "prometheus" }, 2, [["web", 9090, "TCP"]]);
    emit(
      "DaemonSet",
      "monitoring",
      "node-exporter",
      { app: "node-exporter" },
      0,
      [["metrics", 9100, "TCP"]],
      { hostNetwork: true },
    );
    stats.services += 2;
  }

  for (const ns of p.namespaces) {
    nsDoc(ns.name, { team: ns.team, env: ns.env, "app.kubernetes.io/managed-by": "platform" });
    let services = 0;
    for (const app of ns.apps) {
      const labels = podLabels(ns, app);
      let ports = PORTS[app.tier];
      const extra = { hash: app.hash };
      if (spec.manyPorts) {
        // Named ports p0..pN-1 whose numbers differ per pod: pods of one app no longer share a class.
        const base = PORTS[app.tier];
        extra.portsOf = (i) => [
          ...base,
          ...Array.from({ length: spec.manyPorts - base.length }, (_, k) => [
            `p${k}`,
            20000 + k * 7 + (i % 5) + (k % 3) * i,
            "TCP",
          ]),
        ];
        ports = extra.portsOf(0);
      }
      emit(app.kind, ns.name, app.name, labels, app.replicas, ports, extra);
      if (services < spec.servicesPerNs && app.tier !== "worker") {
        const svcPorts = spec.manyPorts
          ? ports.slice(0, 100).map(([n, port]) => [n, port, "TCP", port])
          : ports.map(([n, port, proto]) => [n, port, proto, n === "http" ? 80 : port]);
        parts.push(serviceDoc(ns.name, app.name, { app: app.name }, svcPorts));
        services++;
      }
    }
    stats.services += services;
    const pols = namespacePolicies(p, ns, spec.policiesPerNs, spec);
    if (spec.manyPorts) {
      // Wide ranges and named ports on top: rules that every port query has to resolve per destination.
      for (let k = 0; k < 5; k++) {
        pols.push(
          policyDoc(
            ns.name,
            `ports-${k}`,
            `  podSelector: {}\n  ingress:\n  - ports:\n    - {port: ${20000 + k * 100}, endPort: ${20000 + k * 100 + 150}}\n    - port: p${k * 9}\n    - port: p${k * 9 + 1}\n      protocol: TCP\n`,
          ),
        );
      }
    }
    stats.policies += pols.length;
    parts.push(...pols);
  }
  if (spec.clusterPolicies) {
    const cps = clusterPolicies(p);
    stats.clusterPolicies = cps.length;
    parts.push(...cps);
  }
  const text = parts.join("");
  return { text, stats: { ...stats, bytes: Buffer.byteLength(text) } };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) {
  const [tier = "S", seed] = process.argv.slice(2);
  const { text, stats } = generate(tier, seed ? Number(seed) : DEFAULT_SEED);
  process.stdout.write(text);
  process.stderr.write(`${tier}: ${JSON.stringify(stats)}\n`);
}
