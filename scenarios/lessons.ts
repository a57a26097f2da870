/**
 * The lesson catalogue: each lesson makes one idea visible. A lesson has a
 * goal, one question to predict, its answer (revealed on demand), and one
 * suggested edit with what to look for. `checks` pin the answer as trace
 * queries in `ktl trace` syntax; scenarios/lessons.test.ts runs them through
 * the engine, so a lesson whose answer the engine no longer gives fails.
 */
import type { Protocol } from "../src/engine/model/types.ts";
import type { WhatIf } from "../src/engine/whatif/index.ts";
import type { CniName } from "../src/engine/cni/profile.ts";
import type { RulesMode } from "../src/engine/analysis/types.ts";
import ciliumL7 from "./17-refuse-a-path-with-a-cilium-l7-rule/manifests.yaml";
import calicoTiers from "./18-order-calico-tiers-with-pass/manifests.yaml";
import compareCnis from "./19-compare-cnis-on-a-masqueraded-nodeport/manifests.yaml";
import cascade from "./20-read-the-probability-cascade/manifests.yaml";
import hairpin from "./21-call-your-own-service-hairpin/manifests.yaml";
import sourceRanges from "./22-filter-clients-with-source-ranges/manifests.yaml";
import crossZone from "./23-watch-hints-cross-zones/manifests.yaml";
import lbInside from "./24-call-a-load-balancer-from-inside/manifests.yaml";
import gatewayCanary from "./25-split-a-canary-through-a-gateway/manifests.yaml";
import ingress404 from "./26-find-why-an-ingress-answers-404/manifests.yaml";
import adminDeny from "./27-hold-an-admin-deny-over-every-namespace/manifests.yaml";
import passToBaseline from "./28-pass-to-the-namespace-with-a-baseline-behind/manifests.yaml";
import routePrecedence from "./29-find-which-httproute-rule-wins/manifests.yaml";
import registryOnly from "./30-admit-an-external-host-with-a-serviceentry/manifests.yaml";
import istioHeader from "./31-route-by-header-with-an-istio-virtualservice/manifests.yaml";
import flannel from "./32-apply-a-policy-on-flannel/manifests.yaml";
import hostNetworkPeers from "./33-admit-a-host-network-pod/manifests.yaml";
import apiServerEgress from "./34-reach-the-api-server-under-egress-deny/manifests.yaml";
import calicoEndOfTier from "./35-end-a-calico-tier-without-a-verdict/manifests.yaml";
import sharedGateway from "./36-attach-routes-across-namespaces/manifests.yaml";
import nodePortBypass from "./37-go-around-source-ranges-through-a-nodeport/manifests.yaml";
import undefinedSubset from "./38-route-to-an-undefined-subset/manifests.yaml";
import cniIgnores from "./39-catch-a-policy-the-cni-ignores/manifests.yaml";
import l4BesideL7 from "./40-add-an-l4-rule-beside-a-cilium-l7-rule/manifests.yaml";
import adminPriority from "./41-order-admin-policies-by-priority/manifests.yaml";
import outsideName from "./42-allow-an-outside-name-with-tofqdns/manifests.yaml";
import affinityPerNode from "./43-follow-session-affinity-across-nodes/manifests.yaml";
import externalNameTls from "./44-call-an-externalname-service-over-tls/manifests.yaml";
import type { Scenario, ScenarioExpectation } from "./types.ts";
import spreadLoad from "./02-spread-load-with-external-local/manifests.yaml";
import nodeCache from "./03-keep-cache-calls-on-the-node/manifests.yaml";
import noLocal from "./04-drop-calls-with-no-local-endpoint/manifests.yaml";
import defaultDeny from "./05-allow-one-caller-after-default-deny/manifests.yaml";
import onePeer from "./06-combine-selectors-in-one-peer/manifests.yaml";
import breakDns from "./07-break-dns-with-egress-deny/manifests.yaml";
import masquerade from "./08-lose-the-client-ip-to-masquerade/manifests.yaml";
import zoneHints from "./09-keep-traffic-in-zone-with-hints/manifests.yaml";
import preferClose from "./10-prefer-close-endpoints/manifests.yaml";
import sameNode from "./11-prefer-the-same-node/manifests.yaml";
import terminating from "./12-serve-from-terminating-pods/manifests.yaml";
import affinity from "./13-pin-clients-with-session-affinity/manifests.yaml";
import namedPort from "./14-resolve-a-named-target-port/manifests.yaml";
import noMatch from "./15-find-a-selector-that-matches-nothing/manifests.yaml";
import headless from "./16-resolve-headless-and-externalname/manifests.yaml";

/** One trace whose outcome the answer states. Unset fields are not checked. */
export interface LessonCheck {
  /** `pod:NS/NAME`, `node:NAME` or `external:IP@NODE`. */
  from: string;
  /** `service:NS/NAME:PORT`, `pod:NS/NAME:PORT`, `ip:ADDRESS:PORT`, or an L7 router: `gateway:NS/NAME:PORT`, `ingress:NS/NAME:PORT`. */
  to: string;
  protocol?: Protocol;
  verdict: "allow" | "drop" | "partial";
  /** Exactly these candidate endpoints: `NS/POD`, or `NS/POD:PORT` when the port matters. */
  endpoints?: string[];
  /** Exactly these nodes run the candidate endpoints. */
  nodes?: string[];
  /** How many candidate endpoints kube-proxy chooses among. */
  count?: number;
  sourceIPPreserved?: boolean;
  /** kube-proxy's action on the handling node; "none" when kube-proxy is not involved (headless, pod IP). */
  kubeProxy?: "forward" | "drop" | "reject" | "none";
  /** Steps that the trace must show (`ktl trace` hop names). */
  hops?: string[];
  /** An HTTP request, `METHOD PATH` as `ktl trace --http` takes it; `headers` as `Name: value`. */
  http?: string;
  headers?: string[];
  /**
   * What the client gets back (`ktl trace --json` httpStatus): 200, 403 when an L7 policy refuses, 404 when no
   * route matches... For an HTTP check, unset means no HTTP answer at all (the connection never reached a proxy).
   */
  httpStatus?: number;
  /** The Services an L7 router chose and each one's share (`ktl trace --json` backends): "NS/NAME:PORT" or "NS/NAME:PORT#SUBSET" -> weight. */
  backends?: Record<string, number>;
  /** The cluster profile the check runs under (`ktl trace --cni`); generic when unset. */
  cni?: CniName;
  /** Words the trace must say (a hop's detail), for answers that depend on the CNI. */
  says?: string;
}

/** The suggested edit: a what-if control, or a text replacement of the manifests. */
export type LessonChange = { whatIf: WhatIf } | { replace: { find: string; with: string } };

export interface LessonEdit {
  /** What to change, in words. */
  description: string;
  /** What to look for afterwards. */
  lookFor: string;
  change: LessonChange;
  /** What the engine computes after the edit. */
  checks: LessonCheck[];
}

export interface Lesson {
  /** The folder name, also the `#lesson=<id>` of the playground. */
  id: string;
  number: number;
  title: string;
  goal: string;
  question: string;
  answer: string;
  checks: LessonCheck[];
  edit: LessonEdit;
  /** Where the answer comes from upstream: a file and function, a KEP, or a docs page; shown after the reveal. */
  sources: string[];
  /** Tags for the menu. */
  topics: string[];
  /**
   * The mode the Node rules tab opens in for this lesson, where the lesson is
   * about kube-proxy's rules: nftables, the mode 1.35 recommends; iptables and
   * IPVS stay one click away there. Unset: the tab keeps the user's mode.
   */
  rulesMode?: RulesMode;
  file: string;
  manifests: string;
}

type LessonData = Omit<Lesson, "number" | "file" | "manifests">;

const DATA: [string, LessonData][] = [
  [
    spreadLoad,
    {
      id: "02-spread-load-with-external-local",
      title: "Send outside traffic with externalTrafficPolicy: Local",
      topics: ["externalTrafficPolicy", "healthCheckNodePort", "LoadBalancer"],
      goal: "Predict which nodes a load balancer uses for a Service with externalTrafficPolicy: Local, and how the load divides among pods placed unevenly on them.",
      question:
        "storefront runs 3 replicas: 2 on node-a, 1 on node-b, none on node-c. An external client's packets can arrive at any node. Which nodes does the load balancer send traffic to, and what share of it does each pod get?",
      answer:
        "Only node-a and node-b. kube-proxy answers the load balancer's health check on healthCheckNodePort 32100 with 200 where a ready local pod runs and 503 on node-c, so the load balancer leaves node-c out (and a packet that lands there anyway is dropped: no local endpoint). Each node forwards only to its own pods and keeps the client's address 203.0.113.10. A load balancer that weights healthy nodes equally splits traffic per node, not per pod: node-b's single pod takes half of all traffic, node-a's two pods a quarter each. That split is the load balancer's choice, not kube-proxy's: the health check also reports the node's local endpoint count in its X-Load-Balancing-Endpoint-Weight header, which some load balancers use to weight nodes, and load balancers that target pods directly skip nodes altogether.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/healthcheck/service_health.go (200/503 on healthCheckNodePort, X-Load-Balancing-Endpoint-Weight)",
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints (externalTrafficPolicy Local: local endpoints only)",
        "https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/#preserving-the-client-source-ip",
      ],
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "service:shop/storefront:80",
          verdict: "allow",
          nodes: ["node-a"],
          count: 2,
          sourceIPPreserved: true,
          hops: ["load balancer health check"],
        },
        {
          from: "external:203.0.113.10@node-b",
          to: "service:shop/storefront:80",
          verdict: "allow",
          nodes: ["node-b"],
          count: 1,
          sourceIPPreserved: true,
        },
        {
          from: "external:203.0.113.10@node-c",
          to: "service:shop/storefront:80",
          verdict: "drop",
          count: 0,
          kubeProxy: "drop",
        },
      ],
      edit: {
        description:
          "Switch storefront's externalTrafficPolicy to Cluster (the what-if also drops healthCheckNodePort, as the apiserver does on this change).",
        lookFor:
          "Every node serves now, node-c included, and each picks any of the 3 pods with chance 1/3: the load evens out per pod. The price: the packet is masqueraded, so the pods see the node's address instead of 203.0.113.10.",
        change: {
          whatIf: {
            kind: "trafficPolicy",
            service: "shop/storefront",
            field: "externalTrafficPolicy",
            value: "Cluster",
          },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-c",
            to: "service:shop/storefront:80",
            verdict: "allow",
            nodes: ["node-a", "node-b"],
            count: 3,
            sourceIPPreserved: false,
          },
        ],
      },
    },
  ],
  [
    nodeCache,
    {
      id: "03-keep-cache-calls-on-the-node",
      title: "Call a node cache with internalTrafficPolicy: Local",
      topics: ["internalTrafficPolicy", "DaemonSet"],
      goal: "Predict which pod of a DaemonSet answers a client when the Service in front of it has internalTrafficPolicy: Local.",
      question:
        "node-cache runs one pod per node and its Service has internalTrafficPolicy: Local. shop/api-1 runs on node-b. Which cache pod answers when it calls node-cache:6379?",
      answer:
        "Only the cache pod on node-b, with probability 1: for a Local Service kube-proxy on node-b keeps the node's own endpoints, and the call never leaves the node. api-0 (node-a) and api-2 (node-c) likewise reach only their own node's cache pod.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints (internalTrafficPolicy Local)",
        "https://kubernetes.io/docs/concepts/services-networking/service-traffic-policy/",
      ],
      checks: [
        {
          from: "pod:shop/api-1",
          to: "service:cache/node-cache:6379",
          verdict: "allow",
          nodes: ["node-b"],
          count: 1,
          sourceIPPreserved: true,
        },
        {
          from: "pod:shop/api-0",
          to: "service:cache/node-cache:6379",
          verdict: "allow",
          nodes: ["node-a"],
          count: 1,
        },
        {
          from: "pod:shop/api-2",
          to: "service:cache/node-cache:6379",
          verdict: "allow",
          nodes: ["node-c"],
          count: 1,
        },
      ],
      edit: {
        description: "Switch node-cache's internalTrafficPolicy to Cluster.",
        lookFor:
          "api-1 now reaches all three cache pods, each with chance 1/3: two calls in three cross to another node. That is the hop Local saves; the next lesson shows its price.",
        change: {
          whatIf: {
            kind: "trafficPolicy",
            service: "cache/node-cache",
            field: "internalTrafficPolicy",
            value: "Cluster",
          },
        },
        checks: [
          {
            from: "pod:shop/api-1",
            to: "service:cache/node-cache:6379",
            verdict: "allow",
            nodes: ["node-a", "node-b", "node-c"],
            count: 3,
          },
        ],
      },
    },
  ],
  [
    noLocal,
    {
      id: "04-drop-calls-with-no-local-endpoint",
      title: "Call a Local Service from a node without its pod",
      rulesMode: "nftables",
      topics: ["internalTrafficPolicy", "iptables"],
      goal: "Predict what happens to a call to an internalTrafficPolicy: Local Service from a node that runs none of its pods, then find the kube-proxy rule that decides it on that node (nftables, with iptables and IPVS one click away).",
      question:
        "nginx-sample runs one pod, on vmss000000. The client pod on vmss000002 calls nginx-sample-svc:80, which has internalTrafficPolicy: Local. What happens to the connection?",
      answer:
        'It is dropped on the client\'s own node. kube-proxy on vmss000002 has no local endpoint for the Service, so it writes a drop for its ClusterIP. In nftables mode (GA since 1.33, and the mode SIG Network points users to) that is the element `10.110.9.10 . tcp . 80 comment "default/nginx-sample-svc" : drop` of the map no-endpoint-services, which the chain service-endpoints-check consults for new connections. In iptables mode it is the seed AKS dump\'s rule `-A KUBE-SERVICES -d 10.110.9.10/32 -p tcp -m comment --comment "default/nginx-sample-svc has no local endpoints" -m tcp --dport 80 -j DROP`. The Node rules tab shows both on aks-nodepool1-23236778-vmss000002; IPVS mode, deprecated in 1.35, gives the ClusterIP a virtual server with no real server. A drop, not a reject: the client waits for a timeout instead of getting "connection refused", although a ready pod runs one node away.',
      sources: [
        "kubernetes/kubernetes pkg/proxy/nftables/proxier.go syncProxyRules (no-endpoint-services map: drop when no endpoint serves the traffic's policy, reject when the Service has none)",
        'kubernetes/kubernetes pkg/proxy/iptables/proxier.go syncProxyRules ("has no local endpoints" DROP, "has no endpoints" REJECT)',
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints",
        "https://kubernetes.io/docs/concepts/services-networking/service-traffic-policy/",
        "https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-nftables",
        "KEP-5495 (IPVS mode deprecated in 1.35; SIG Network points IPVS users to nftables, which KEP-3866 made GA in 1.33)",
      ],
      checks: [
        {
          from: "pod:default/client",
          to: "service:default/nginx-sample-svc:80",
          verdict: "drop",
          count: 0,
          kubeProxy: "drop",
        },
      ],
      edit: {
        description: "Switch nginx-sample-svc's internalTrafficPolicy to Cluster.",
        lookFor:
          "The client reaches the pod on vmss000000. The rules turn into the second half of the seed dump: a KUBE-SVC chain that marks traffic from outside the pod network for masquerade and jumps to the one KUBE-SEP endpoint chain.",
        change: {
          whatIf: {
            kind: "trafficPolicy",
            service: "default/nginx-sample-svc",
            field: "internalTrafficPolicy",
            value: "Cluster",
          },
        },
        checks: [
          {
            from: "pod:default/client",
            to: "service:default/nginx-sample-svc:80",
            verdict: "allow",
            nodes: ["aks-nodepool1-23236778-vmss000000"],
            count: 1,
            kubeProxy: "forward",
          },
        ],
      },
    },
  ],
  [
    defaultDeny,
    {
      id: "05-allow-one-caller-after-default-deny",
      title: "Allow one caller after a default deny",
      topics: ["NetworkPolicy", "default deny"],
      goal: "Build access from a default-deny baseline: one policy that isolates every pod of a namespace, then one allow rule on top.",
      question:
        "In shop, default-deny-ingress isolates every pod, and payments-from-orders lets orders reach payments on its http port. Which of shop/frontend, shop/orders and tools/toolbox can call payments:80?",
      answer:
        "Only shop/orders, on a cluster whose network plugin enforces NetworkPolicy (on one that does not, such as flannel alone, all three get through: lesson 32). frontend and toolbox match no ingress rule of the policies that select payments, so payments drops them. The Service's port 80 plays no part in the policy: it is checked after DNAT, against the pod's port 8080 (named http).",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-policies",
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#prerequisites (a NetworkPolicy has no effect without a network plugin that implements it)",
        "kubernetes/kubernetes test/e2e/network/netpol/network_policy.go (default deny, then allow)",
      ],
      checks: [
        {
          from: "pod:shop/orders",
          to: "service:shop/payments:80",
          verdict: "allow",
          endpoints: ["shop/payments:8080"],
        },
        { from: "pod:shop/frontend", to: "service:shop/payments:80", verdict: "drop", count: 1 },
        { from: "pod:tools/toolbox", to: "service:shop/payments:80", verdict: "drop", count: 1 },
      ],
      edit: {
        description: "Switch off default-deny-ingress.",
        lookFor:
          "payments still admits only orders: payments-from-orders selects payments, and a pod that any ingress policy selects is isolated. What opens up is the rest of shop: payments can now reach frontend on 8080, for example.",
        change: { whatIf: { kind: "policyOff", policy: "shop/default-deny-ingress" } },
        checks: [
          { from: "pod:shop/frontend", to: "service:shop/payments:80", verdict: "drop" },
          { from: "pod:shop/payments", to: "pod:shop/frontend:8080", verdict: "allow" },
        ],
      },
    },
  ],
  [
    onePeer,
    {
      id: "06-combine-selectors-in-one-peer",
      title: "Combine selectors in one peer, or split them in two",
      topics: ["NetworkPolicy", "namespaceSelector", "podSelector"],
      goal: "Read a NetworkPolicy peer that has both a podSelector and a namespaceSelector, and see what a single dash in front of podSelector changes.",
      question:
        "postgres-from-app-clients has ONE peer with namespaceSelector team=app and podSelector role=client. Which of app/client, app/worker, db/migrator and other/client may connect to db/postgres on 5432?",
      answer:
        "Only app/client. A peer with both selectors needs both at once: a pod labelled role=client in a namespace labelled team=app. app/worker has the wrong label; db/migrator and other/client are in namespaces without team=app. The drops hold on a cluster whose network plugin enforces NetworkPolicy.",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#behavior-of-to-and-from-selectors",
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#prerequisites",
        "kubernetes/api networking/v1/types.go NetworkPolicyPeer",
      ],
      checks: [
        { from: "pod:app/client", to: "pod:db/postgres:5432", verdict: "allow" },
        { from: "pod:app/worker", to: "pod:db/postgres:5432", verdict: "drop" },
        { from: "pod:db/migrator", to: "pod:db/postgres:5432", verdict: "drop" },
        { from: "pod:other/client", to: "pod:db/postgres:5432", verdict: "drop" },
      ],
      edit: {
        description: "Put a dash in front of podSelector, so that the peer becomes two peers.",
        lookFor:
          "Now every pod in a team=app namespace (app/client and app/worker) OR every role=client pod in the policy's own namespace db (db/migrator) gets in. other/client is still dropped: a podSelector alone selects pods in the policy's namespace only.",
        change: {
          replace: {
            find: "              team: app\n          podSelector:",
            with: "              team: app\n        - podSelector:",
          },
        },
        checks: [
          { from: "pod:app/worker", to: "pod:db/postgres:5432", verdict: "allow" },
          { from: "pod:db/migrator", to: "pod:db/postgres:5432", verdict: "allow" },
          { from: "pod:other/client", to: "pod:db/postgres:5432", verdict: "drop" },
        ],
      },
    },
  ],
  [
    breakDns,
    {
      id: "07-break-dns-with-egress-deny",
      title: "Look up a name under an egress default deny",
      topics: ["NetworkPolicy", "egress", "DNS"],
      goal: "Predict whether a pod under an egress default deny can resolve a Service's name, and whether it can call the Service, when an allow rule permits the call itself.",
      question:
        "default-deny-egress isolates every pod in shop for egress, and web-to-api lets web reach the api pods on 8080. Can shop/web resolve a name (UDP 53 to kube-dns)? Can it call api?",
      answer:
        "The lookup is dropped: web is isolated for egress and no rule allows UDP/53 to the CoreDNS pods (egress rules are checked after DNAT, against each CoreDNS pod), so `curl http://api` fails at the name. The call to api's ClusterIP is allowed by web-to-api: by address it gets through. Both drops need a network plugin that enforces NetworkPolicy. With NodeLocal DNSCache the answer comes from a cache on the node, a hostNetwork pod, not from a CoreDNS pod, so the podSelector of the edit below does not match it. Which address the pod asks depends on kube-proxy's mode: in IPVS mode the kubelet's --cluster-dns is changed to the cache's local address (169.254.20.10 in the docs' example); in iptables mode pods keep asking the kube-dns ClusterIP, which the cache also listens on. The addon's README suggests an ipBlock for the address pods ask; with Cilium that does not work, because CIDR rules never apply to traffic to the host: allow the host by entity instead (toEntities: host in a CiliumNetworkPolicy).",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#the-two-sorts-of-pod-isolation (egress isolation)",
        "https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/",
        "https://kubernetes.io/docs/tasks/administer-cluster/nodelocaldns/#configuration (IPVS mode: --cluster-dns set to the local address; iptables mode: the cache listens on both)",
        "kubernetes/kubernetes cluster/addons/dns/nodelocaldns/README.md Network policy and DNS connectivity (the cache runs with hostNetwork; an ipBlock rule instead of a selector)",
        "https://docs.cilium.io/en/stable/security/policy/layer3/#ip-cidr-based (CIDR rules do not apply to traffic to a node or a host-network pod)",
      ],
      checks: [
        {
          from: "pod:shop/web",
          to: "service:kube-system/kube-dns:53",
          protocol: "UDP",
          verdict: "drop",
          count: 2,
        },
        // By name, the lookup comes first and fails (trace/dns.ts); by its ClusterIP (allocated: 10.109.48.10), web-to-api allows the call.
        { from: "pod:shop/web", to: "service:shop/api:80", verdict: "drop", hops: ["dns"] },
        { from: "pod:shop/web", to: "ip:10.109.48.10:80", verdict: "allow", endpoints: ["shop/api:8080"] },
      ],
      edit: {
        description:
          "Give default-deny-egress one egress rule: UDP and TCP 53 to the kube-dns pods in kube-system.",
        lookFor:
          "UDP 53 to both CoreDNS pods is allowed now, for every pod in shop, and TCP 53 (large answers) too. Calls to api are still allowed only from web.",
        change: {
          replace: {
            find: "  name: default-deny-egress\n  namespace: shop\nspec:\n  podSelector: {}\n  policyTypes:\n    - Egress\n",
            with: "  name: default-deny-egress\n  namespace: shop\nspec:\n  podSelector: {}\n  policyTypes:\n    - Egress\n  egress:\n    - to:\n        - namespaceSelector:\n            matchLabels:\n              kubernetes.io/metadata.name: kube-system\n          podSelector:\n            matchLabels:\n              k8s-app: kube-dns\n      ports:\n        - protocol: UDP\n          port: 53\n        - protocol: TCP\n          port: 53\n",
          },
        },
        checks: [
          {
            from: "pod:shop/web",
            to: "service:kube-system/kube-dns:53",
            protocol: "UDP",
            verdict: "allow",
            count: 2,
          },
          {
            from: "pod:shop/api",
            to: "service:kube-system/kube-dns:53",
            protocol: "TCP",
            verdict: "allow",
            count: 2,
          },
        ],
      },
    },
  ],
  [
    masquerade,
    {
      id: "08-lose-the-client-ip-to-masquerade",
      title: "Admit a partner network with ipBlock",
      topics: ["NetworkPolicy", "ipBlock", "externalTrafficPolicy", "masquerade"],
      goal: "Predict whether an ipBlock rule for the clients' network admits them through a LoadBalancer with externalTrafficPolicy: Cluster, when the pod runs on another node than the one the packet reaches.",
      question:
        "api-from-partners admits only 203.0.113.0/24 on 8443. A partner at 203.0.113.10 connects to the LoadBalancer, which hands the packet to node-a; the only api pod runs on node-b. Is the connection admitted?",
      answer:
        "No. With externalTrafficPolicy: Cluster, kube-proxy on node-a forwards the packet to the pod on node-b and masquerades it, so that the reply comes back through node-a. With kube-proxy and a routed CNI the packet then carries node-a's address 192.168.10.11 (an overlay CNI may give it node-a's tunnel address instead). The pod sees 192.168.10.11, which is not in 203.0.113.0/24: the ipBlock rule does not match and the NetworkPolicy drops the connection. The masquerade happens on node-a, before node-b's plugin filters, so Calico and Cilium with kube-proxy see the same address; Cilium's kube-proxy replacement in DSR mode is an exception that forwards the packet with the client's address. With flannel alone nothing enforces the policy and the connection gets through.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go syncProxyRules (KUBE-EXT chain: KUBE-MARK-MASQ for externalTrafficPolicy Cluster; KUBE-POSTROUTING MASQUERADE)",
        "https://kubernetes.io/docs/tutorials/services/source-ip/",
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#behavior-of-ipblock-selectors (whether source rewriting happens before or after NetworkPolicy is left to the implementation)",
        "https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/#direct-server-return-dsr",
      ],
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "service:partners/partner-api:443",
          verdict: "drop",
          count: 1,
          sourceIPPreserved: false,
          kubeProxy: "forward",
        },
      ],
      edit: {
        description: "Switch partner-api's externalTrafficPolicy to Local.",
        lookFor:
          "node-a has no api pod, so it fails the health check and the load balancer stops sending to it (what lands there anyway is dropped). Packets that arrive at node-b stay on node-b, keep 203.0.113.10, and the ipBlock rule admits them.",
        change: {
          whatIf: {
            kind: "trafficPolicy",
            service: "partners/partner-api",
            field: "externalTrafficPolicy",
            value: "Local",
          },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-b",
            to: "service:partners/partner-api:443",
            verdict: "allow",
            count: 1,
            sourceIPPreserved: true,
          },
          {
            from: "external:203.0.113.10@node-a",
            to: "service:partners/partner-api:443",
            verdict: "drop",
            kubeProxy: "drop",
          },
        ],
      },
    },
  ],
  [
    zoneHints,
    {
      id: "09-keep-traffic-in-zone-with-hints",
      title: "Ask for topology hints with topology-mode: Auto",
      topics: ["topology-mode", "hints", "zones"],
      goal: "Predict which endpoints a client can reach when its Service asks the EndpointSlice controller for topology hints, and see when the controller gives none.",
      question:
        "catalog has service.kubernetes.io/topology-mode: Auto and 4 replicas, 2 in each zone; both zones have 4 CPUs. Which endpoints can shop/client-a (zone-a) reach?",
      answer:
        "Only the two catalog pods in zone-a, each with chance 1/2. The EndpointSlice controller hints every endpoint for its own zone, because each zone's share of endpoints (2 of 4) matches its share of CPU (4 of 8), and kube-proxy on node-a keeps the endpoints hinted for zone-a. client-b likewise stays in zone-b.",
      sources: [
        "kubernetes/kubernetes staging/src/k8s.io/endpointslice/topologycache/topologycache.go AddHints, getAllocations (overloadThreshold 0.2)",
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints (topology hints)",
        "https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/",
      ],
      checks: [
        {
          from: "pod:shop/client-a",
          to: "service:shop/catalog:80",
          verdict: "allow",
          nodes: ["node-a"],
          count: 2,
        },
        {
          from: "pod:shop/client-b",
          to: "service:shop/catalog:80",
          verdict: "allow",
          nodes: ["node-b"],
          count: 2,
        },
      ],
      edit: {
        description: "Scale catalog to 3 replicas.",
        lookFor:
          "With 3 endpoints for 2 equal zones, each zone's share is 1.5 endpoints and its minimum is ceil(1.5 / 1.2) = 2 (a zone may be overloaded by 20% at most), so the two zones need 4, more than the 3 there are: the controller drops every hint, and both clients fall back to all 3 endpoints, across zones.",
        change: { whatIf: { kind: "scale", workload: "shop/Deployment/catalog", replicas: 3 } },
        checks: [
          {
            from: "pod:shop/client-a",
            to: "service:shop/catalog:80",
            verdict: "allow",
            nodes: ["node-a", "node-b"],
            count: 3,
          },
          {
            from: "pod:shop/client-b",
            to: "service:shop/catalog:80",
            verdict: "allow",
            nodes: ["node-a", "node-b"],
            count: 3,
          },
        ],
      },
    },
  ],
  [
    preferClose,
    {
      id: "10-prefer-close-endpoints",
      title: "Prefer same-zone endpoints with trafficDistribution",
      topics: ["trafficDistribution", "PreferSameZone", "zones"],
      goal: "Predict which endpoints clients in three zones reach when a Service with trafficDistribution: PreferSameZone has pods in only two of them.",
      question:
        "search runs one pod in zone-a and one in zone-b, none in zone-c, with trafficDistribution: PreferSameZone. Which endpoints do client-a (zone-a) and client-c (zone-c) reach?",
      answer:
        "client-a reaches only the search pod in zone-a. client-c reaches both: no endpoint is hinted for zone-c, so kube-proxy on node-c ignores the hints and uses every ready endpoint, each with chance 1/2. (Older manifests write PreferClose: in 1.35 it is the deprecated alias of PreferSameZone and behaves the same.)",
      sources: [
        "KEP-3015 (PreferSameZone and PreferSameNode; PreferClose its deprecated alias, gate PreferSameTrafficDistribution GA in 1.35)",
        "kubernetes/kubernetes staging/src/k8s.io/endpointslice/trafficdist/trafficdist.go preferCloseHeuristic",
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints",
        "https://kubernetes.io/docs/concepts/services-networking/service/#traffic-distribution",
      ],
      checks: [
        {
          from: "pod:shop/client-a",
          to: "service:shop/search:80",
          verdict: "allow",
          nodes: ["node-a"],
          count: 1,
        },
        {
          from: "pod:shop/client-c",
          to: "service:shop/search:80",
          verdict: "allow",
          nodes: ["node-a", "node-b"],
          count: 2,
        },
      ],
      edit: {
        description: "Delete the trafficDistribution line.",
        lookFor: "Without it, client-a spreads over both pods: half of its calls cross to zone-b.",
        change: { replace: { find: "  trafficDistribution: PreferSameZone\n", with: "" } },
        checks: [
          {
            from: "pod:shop/client-a",
            to: "service:shop/search:80",
            verdict: "allow",
            nodes: ["node-a", "node-b"],
            count: 2,
          },
        ],
      },
    },
  ],
  [
    sameNode,
    {
      id: "11-prefer-the-same-node",
      title: "Prefer the same node with trafficDistribution",
      topics: ["trafficDistribution", "PreferSameNode", "internalTrafficPolicy"],
      goal: "Predict which pod of a node agent answers clients when its Service has trafficDistribution: PreferSameNode, on a node that runs the agent and on one that does not.",
      question:
        "otel-agent runs on node-a1 and node-b1 only (node-a2 has no agent yet), with trafficDistribution: PreferSameNode. Which agent pod answers client-a1, and which answers client-a2?",
      answer:
        "client-a1 reaches only the agent on its own node-a1. client-a2 has no agent on its node, so kube-proxy falls back to the zone hints and reaches the agent on node-a1, in its own zone, and never the one in zone-b.",
      sources: [
        "KEP-3015 (PreferSameNode)",
        "kubernetes/kubernetes staging/src/k8s.io/endpointslice/trafficdist/trafficdist.go preferCloseHeuristic (node and zone hints)",
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints (node hints, then zone hints)",
      ],
      checks: [
        {
          from: "pod:observability/client-a1",
          to: "service:observability/otel-agent:4317",
          verdict: "allow",
          nodes: ["node-a1"],
          count: 1,
        },
        {
          from: "pod:observability/client-a2",
          to: "service:observability/otel-agent:4317",
          verdict: "allow",
          nodes: ["node-a1"],
          count: 1,
        },
      ],
      edit: {
        description: "Replace trafficDistribution: PreferSameNode by internalTrafficPolicy: Local.",
        lookFor:
          "client-a1 still reaches its own node's agent, but client-a2 is now dropped: Local never leaves the node, where PreferSameNode only prefers it.",
        change: {
          replace: {
            find: "  trafficDistribution: PreferSameNode\n",
            with: "  internalTrafficPolicy: Local\n",
          },
        },
        checks: [
          {
            from: "pod:observability/client-a1",
            to: "service:observability/otel-agent:4317",
            verdict: "allow",
            nodes: ["node-a1"],
            count: 1,
          },
          {
            from: "pod:observability/client-a2",
            to: "service:observability/otel-agent:4317",
            verdict: "drop",
            kubeProxy: "drop",
          },
        ],
      },
    },
  ],
  [
    terminating,
    {
      id: "12-serve-from-terminating-pods",
      title: "Follow a rollout's terminating pod",
      topics: ["terminating endpoints", "rolling update", "externalTrafficPolicy"],
      goal: "Predict whether kube-proxy sends traffic to a pod that is shutting down during a rolling update, for a client outside the cluster and for one inside it.",
      question:
        "Mid-rollout: the new pod runs on node-a; the old pod on node-b is terminating but still passes its readiness probe. (1) A packet from the load balancer lands on node-b (externalTrafficPolicy: Local). (2) checkout, on node-b, calls the ClusterIP. Which pod gets each?",
      answer:
        "(1) The old pod web-7d4b9c6f5-x2v8q. node-b has no ready local endpoint, but the old pod is still serving, and kube-proxy falls back to serving terminating endpoints on the node instead of dropping the packet. The health check already answers 503 on node-b (terminating pods do not count), so the load balancer stops sending new connections there once it notices; established connections keep flowing through conntrack whatever the rules say, and the fallback serves the new connections the load balancer still sends until then. (2) Only the new pod web-5f6c8d9b7-k4m2n: cluster-wide, terminating endpoints are used only when no ready endpoint exists anywhere.",
      sources: [
        "KEP-1669 (proxy terminating endpoints)",
        "kubernetes/kubernetes pkg/proxy/topology.go CategorizeEndpoints (serving-terminating fallback)",
        "kubernetes/kubernetes pkg/proxy/healthcheck/service_health.go (only ready local endpoints count)",
      ],
      checks: [
        {
          from: "external:203.0.113.10@node-b",
          to: "service:shop/web:80",
          verdict: "allow",
          endpoints: ["shop/web-7d4b9c6f5-x2v8q"],
        },
        {
          from: "pod:shop/checkout",
          to: "service:shop/web:80",
          verdict: "allow",
          endpoints: ["shop/web-5f6c8d9b7-k4m2n"],
        },
      ],
      edit: {
        description:
          "Make the old pod web-7d4b9c6f5-x2v8q not ready (its readiness probe fails as it shuts down).",
        lookFor:
          "The old pod no longer serves: node-b has nothing left to fall back to, and kube-proxy drops the packet. The ClusterIP call is unchanged.",
        change: { whatIf: { kind: "notReady", pod: "shop/web-7d4b9c6f5-x2v8q" } },
        checks: [
          {
            from: "external:203.0.113.10@node-b",
            to: "service:shop/web:80",
            verdict: "drop",
            kubeProxy: "drop",
          },
          {
            from: "pod:shop/checkout",
            to: "service:shop/web:80",
            verdict: "allow",
            endpoints: ["shop/web-5f6c8d9b7-k4m2n"],
          },
        ],
      },
    },
  ],
  [
    affinity,
    {
      id: "13-pin-clients-with-session-affinity",
      title: "Open ten connections under session affinity",
      topics: ["sessionAffinity", "ClientIP"],
      goal: "Predict where a client's connections go when its Service has sessionAffinity: ClientIP.",
      question:
        "sessions has sessionAffinity: ClientIP. The web pod opens ten connections to sessions:80 within a minute. Which backends can the first one reach, and where do the other nine go?",
      answer:
        "The first connection goes to any of the 3 sessions pods, each with chance 1/3, as without affinity. kube-proxy then remembers web's address and sends the other nine to the same pod, as long as web keeps calling within timeoutSeconds (600 s) of its last connection. Affinity is per client address: all clients behind one NAT address share one backend.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go writeServiceToEndpointRules (-m recent --rcheck --seconds)",
        "https://kubernetes.io/docs/reference/networking/virtual-ips/#session-affinity",
      ],
      checks: [
        {
          from: "pod:shop/web",
          to: "service:shop/sessions:80",
          verdict: "allow",
          endpoints: ["shop/sessions-0", "shop/sessions-1", "shop/sessions-2"],
          hops: ["session affinity"],
        },
      ],
      edit: {
        description: "Scale sessions to 2 replicas.",
        lookFor:
          "sessions-2 is gone: the clients pinned to it lose their affinity and pick again between the two that remain, 1/2 each.",
        change: { whatIf: { kind: "scale", workload: "shop/StatefulSet/sessions", replicas: 2 } },
        checks: [
          {
            from: "pod:shop/web",
            to: "service:shop/sessions:80",
            verdict: "allow",
            endpoints: ["shop/sessions-0", "shop/sessions-1"],
          },
        ],
      },
    },
  ],
  [
    namedPort,
    {
      id: "14-resolve-a-named-target-port",
      title: "Name a targetPort instead of numbering it",
      topics: ["targetPort", "EndpointSlice"],
      goal: "Predict where connections land when a Service's targetPort is a port name that its pods define differently.",
      question:
        "api's targetPort is the name http. api-v1 names 8080 http, api-v2 names 9090 http, api-legacy names its port web. On which pod and port does each connection to api:80 land?",
      answer:
        "On api-v1 port 8080 or on api-v2 port 9090, each with chance 1/2: the EndpointSlice controller looks the name http up in each pod, so one Service port maps to different numbers. api-legacy has no port named http, so it gets no endpoint for port http: the EndpointSlice controller puts it in a slice of its own with ports: [], which kube-proxy has nothing to forward to (ktl reports KTL603).",
      sources: [
        "kubernetes/kubernetes staging/src/k8s.io/endpointslice/utils.go getEndpointPorts (podutil.FindPort per pod)",
        "kubernetes/kubernetes pkg/api/v1/pod/util.go FindPort",
        "https://kubernetes.io/docs/concepts/services-networking/service/#field-spec-ports",
      ],
      checks: [
        {
          from: "pod:shop/web",
          to: "service:shop/api:80",
          verdict: "allow",
          endpoints: ["shop/api-v1:8080", "shop/api-v2:9090"],
        },
      ],
      edit: {
        description: "Rename api-legacy's port from web to http.",
        lookFor: "api-legacy joins the endpoints on 8080, and each pod now has chance 1/3.",
        change: {
          replace: {
            find: "        - name: web\n          containerPort: 8080",
            with: "        - name: http\n          containerPort: 8080",
          },
        },
        checks: [
          {
            from: "pod:shop/web",
            to: "service:shop/api:80",
            verdict: "allow",
            endpoints: ["shop/api-legacy:8080", "shop/api-v1:8080", "shop/api-v2:9090"],
          },
        ],
      },
    },
  ],
  [
    noMatch,
    {
      id: "15-find-a-selector-that-matches-nothing",
      title: "Read what a Service call gets back",
      topics: ["selector", "REJECT"],
      goal: "Predict what a client gets from a Service it calls, and tell kube-proxy's answers apart from a NetworkPolicy's.",
      question:
        "The web pod calls checkout:80. What does it get back, and how does that differ from a NetworkPolicy drop?",
      answer:
        'Connection refused, at once. The selector app=checkout matches no pod (the pods are labelled app=check-out), so the Service has no endpoints and kube-proxy rejects the packet: the client gets an ICMP "port unreachable" (iptables mode: a REJECT rule; nftables mode: a reject element of the map no-endpoint-services). With most network plugins a NetworkPolicy drop, like kube-proxy\'s drop for a Local policy (lesson 04), is silent: the client waits for a timeout (some plugins reject instead).',
      sources: [
        'kubernetes/kubernetes pkg/proxy/iptables/proxier.go syncProxyRules ("has no endpoints" REJECT)',
        "kubernetes/kubernetes pkg/proxy/nftables/proxier.go syncProxyRules (no-endpoint-services map: reject when the Service has no endpoints)",
        "https://kubernetes.io/docs/tasks/debug/debug-application/debug-service/ (section Does the Service have any EndpointSlices?: the selector must match the pods' labels)",
      ],
      checks: [
        {
          from: "pod:shop/web",
          to: "service:shop/checkout:80",
          verdict: "drop",
          count: 0,
          kubeProxy: "reject",
        },
      ],
      edit: {
        description: "Fix the Service's selector to app: check-out.",
        lookFor: "Both checkout pods become endpoints, 1/2 each.",
        change: { replace: { find: "    app: checkout\n  ports:", with: "    app: check-out\n  ports:" } },
        checks: [
          {
            from: "pod:shop/web",
            to: "service:shop/checkout:80",
            verdict: "allow",
            count: 2,
            kubeProxy: "forward",
          },
        ],
      },
    },
  ],
  [
    headless,
    {
      id: "16-resolve-headless-and-externalname",
      title: "Resolve headless and ExternalName Services",
      topics: ["headless", "ExternalName", "DNS"],
      goal: "Predict which addresses a client reaches through a headless Service and through an ExternalName Service, and where kube-proxy comes in.",
      question:
        "app/client connects to postgres.data:5432 (headless; a short name resolves in the client's own namespace app first, so it must say .data) and to billing:80 (ExternalName, in app). Which addresses does it reach, and where does kube-proxy come in?",
      answer:
        "postgres: DNS answers postgres.data.svc.cluster.local with the two pod IPs and the client connects to one of them directly, on 5432. kube-proxy is not involved: no load balancing beyond the client's own pick, no port translation. billing: DNS answers with a CNAME to billing.finance.svc.cluster.local; that name's ClusterIP is an ordinary Service, which kube-proxy forwards to billing-0 on 8080. The client's port (80) must be a port of the target Service, since ExternalName translates none.",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/ (headless records, search path)",
        "https://kubernetes.io/docs/concepts/services-networking/service/#externalname",
        "kubernetes/kubernetes pkg/registry/core/service/storage/storage.go patchAllocatedValues",
        "kubernetes/kubernetes pkg/apis/core/validation/validation.go ValidateServiceUpdate (validateUpgradeDowngradeClusterIPs)",
      ],
      checks: [
        {
          from: "pod:app/client",
          to: "service:data/postgres:5432",
          verdict: "allow",
          endpoints: ["data/postgres-0:5432", "data/postgres-1:5432"],
          kubeProxy: "none",
          hops: ["dns"],
        },
        {
          from: "pod:app/client",
          to: "service:app/billing:80",
          verdict: "allow",
          endpoints: ["finance/billing-0:8080"],
          kubeProxy: "forward",
          hops: ["dns", "kube-proxy"],
        },
      ],
      edit: {
        description: "Delete postgres's clusterIP: None line.",
        lookFor:
          "Read as a new cluster, the text now gives postgres a ClusterIP and kube-proxy load-balances it: a kube-proxy hop appears, 1/2 each. Applied to the running Service it does not: the apiserver keeps the stored clusterIP None when the new one is empty (patchAllocatedValues), so the Service silently stays headless (`ktl validate --old` says KTL620); an explicit new clusterIP would be rejected as immutable. To change it, delete and recreate the Service.",
        change: { replace: { find: "  clusterIP: None\n", with: "" } },
        checks: [
          {
            from: "pod:app/client",
            to: "service:data/postgres:5432",
            verdict: "allow",
            count: 2,
            kubeProxy: "forward",
          },
        ],
      },
    },
  ],
  [
    ciliumL7,
    {
      id: "17-refuse-a-path-with-a-cilium-l7-rule",
      title: "Write a Cilium L7 rule for one path",
      sources: [
        "https://docs.cilium.io/en/stable/security/policy/layer7/#http (a request that violates the HTTP rules gets HTTP 403; Path and Method are extended POSIX regexes)",
        "https://github.com/cilium/cilium/blob/main/pkg/envoy/server.go getHTTPRule (Path and Method become Envoy safe_regex header matchers on :path and :method)",
        "https://github.com/envoyproxy/envoy/blob/main/api/envoy/config/route/v3/route_components.proto HeaderMatcher.safe_regex_match (the entire header value must match the regex)",
      ],
      topics: ["CiliumNetworkPolicy", "L7", "HTTP"],
      goal: "Predict what requests of different methods and paths get from a pod behind a CiliumNetworkPolicy with an HTTP rule, and what a client that the policy does not name gets.",
      question:
        "api-read-only lets frontend reach api on 8080 with one HTTP rule: GET /api/.*. What do GET /api/orders, POST /api/orders and GET /health from frontend get, and what happens to batch?",
      answer:
        "GET /api/orders reaches api (200). POST /api/orders and GET /health open a connection, but Cilium's proxy answers 403: the method is not GET, or the path does not match /api/.* as a whole. batch is not selected by fromEndpoints, so its connection is dropped at L4 with no HTTP answer at all: api is in default deny for ingress once a rule selects it.",
      checks: [
        {
          from: "pod:shop/frontend",
          to: "service:shop/api:80",
          http: "GET /api/orders",
          verdict: "allow",
          httpStatus: 200,
        },
        {
          from: "pod:shop/frontend",
          to: "service:shop/api:80",
          http: "POST /api/orders",
          verdict: "drop",
          httpStatus: 403,
        },
        {
          from: "pod:shop/frontend",
          to: "service:shop/api:80",
          http: "GET /health",
          verdict: "drop",
          httpStatus: 403,
        },
        { from: "pod:shop/batch", to: "service:shop/api:80", verdict: "drop" },
      ],
      edit: {
        description: "Let the rule take POST too: change method: GET to method: GET|POST.",
        lookFor:
          "POST /api/orders now reaches api (200); GET /health still gets 403, because the path must match /api/.* from its first character to its last.",
        change: { replace: { find: "- method: GET", with: "- method: GET|POST" } },
        checks: [
          {
            from: "pod:shop/frontend",
            to: "service:shop/api:80",
            http: "POST /api/orders",
            verdict: "allow",
            httpStatus: 200,
          },
          {
            from: "pod:shop/frontend",
            to: "service:shop/api:80",
            http: "GET /health",
            verdict: "drop",
            httpStatus: 403,
          },
        ],
      },
    },
  ],
  [
    calicoTiers,
    {
      id: "18-order-calico-tiers-with-pass",
      title: "Order Calico tiers with Pass",
      sources: [
        "https://docs.tigera.io/calico/latest/reference/resources/tier#how-policy-is-evaluated (tiers by order; Pass goes to the next tier)",
        "https://github.com/projectcalico/calico/blob/master/libcalico-go/lib/backend/k8s/conversion/conversion.go K8sNetworkPolicyToCalico (NetworkPolicies at order 1000 in the default tier)",
      ],
      topics: ["Calico", "Tier", "GlobalNetworkPolicy", "order"],
      goal: "Follow Calico's order of evaluation: tiers by their order, policies by order within a tier, the Pass action, and where Kubernetes NetworkPolicies sit.",
      question:
        "The security tier denies quarantined pods and passes everything else. In the default tier, db-deny-reports (order 100) denies reports, and the NetworkPolicy db-allow-shop admits every pod of shop. Who may call db on 8080: api, api-quarantined, reports?",
      answer:
        "Only api. api-quarantined meets the security tier's Deny first. reports is passed on to the default tier, where db-deny-reports at order 100 denies it before the NetworkPolicy (order 1000) could allow it. api is passed on too, matches no Calico rule, and db-allow-shop allows it.",
      checks: [
        { from: "pod:shop/api", to: "pod:shop/db:8080", verdict: "allow" },
        { from: "pod:shop/api-quarantined", to: "pod:shop/db:8080", verdict: "drop" },
        { from: "pod:shop/reports", to: "pod:shop/db:8080", verdict: "drop" },
      ],
      edit: {
        description: "In security.quarantine, turn the last rule's Pass into Allow.",
        lookFor:
          "reports now reaches db: an Allow in the security tier is final, so the default tier, db-deny-reports included, is never consulted. Quarantined pods are still denied: their Deny comes first.",
        change: { replace: { find: "    - action: Pass", with: "    - action: Allow" } },
        checks: [
          { from: "pod:shop/reports", to: "pod:shop/db:8080", verdict: "allow" },
          { from: "pod:shop/api-quarantined", to: "pod:shop/db:8080", verdict: "drop" },
        ],
      },
    },
  ],
  [
    compareCnis,
    {
      id: "19-compare-cnis-on-a-masqueraded-nodeport",
      title: "Compare CNIs on a NodePort",
      sources: [
        "kubernetes/kubernetes staging/src/k8s.io/api/networking/v1/types.go NetworkPolicySpec.ingress (the pod's local node; policy before or after SNAT is left to the implementation)",
        "https://github.com/projectcalico/calico/tree/master/felix/rules Felix renders policy in the filter FORWARD chain, before nat POSTROUTING MASQUERADE",
        "https://docs.cilium.io/en/stable/security/policy/layer3/#access-to-from-local-host (the local host is allowed by default; --allow-localhost=policy hands it to policy)",
        "https://github.com/cilium/cilium/blob/main/Documentation/network/kubernetes/kubeproxy-free.rst kube-proxy replacement (no SNAT toward a local backend)",
      ],
      topics: ["cluster profile", "masquerade", "NodePort", "NetworkPolicy"],
      goal: "See an answer that Kubernetes leaves to the network plugin: does ingress policy see the client's address, or the one kube-proxy rewrote it to? Compare the cluster profiles side by side.",
      question:
        "web's only pod runs on node-a, behind a NodePort with externalTrafficPolicy Cluster, and default-deny-ingress isolates it. An outside client, 203.0.113.10, lands on node-a. Is it let in?",
      answer:
        "It depends on the network plugin. kube-proxy masquerades the packet to node-a's own address. With Calico, Felix filters before that masquerade, sees 203.0.113.10 and drops it. With Cilium and kube-proxy, the pod's policy sees its own node, the host, and Cilium admits traffic from the local host by default (its allow-localhost setting; with allow-localhost: policy the host is judged like any other peer, and this packet would be dropped). With Cilium's kube-proxy replacement there is no masquerade toward a local backend, so the policy sees the client and drops it. The generic profile keeps Kubernetes' rule that a pod's own node is always admitted and says that the answer depends on the plugin.",
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "service:shop/web:80",
          verdict: "allow",
          says: "this depends on the CNI",
        },
        { from: "external:203.0.113.10@node-a", to: "service:shop/web:80", cni: "calico", verdict: "drop" },
        { from: "external:203.0.113.10@node-a", to: "service:shop/web:80", cni: "cilium", verdict: "allow" },
        {
          from: "external:203.0.113.10@node-a",
          to: "service:shop/web:80",
          cni: "cilium-kpr",
          verdict: "drop",
        },
      ],
      edit: {
        description:
          'Say which CNI runs: add Cilium\'s cilium-config ConfigMap with kube-proxy-replacement: "true" (ktl reads the profile from it).',
        lookFor:
          "Without choosing a profile, the trace now follows Cilium's kube-proxy replacement: the client's own address meets default-deny-ingress and is dropped.",
        change: {
          replace: {
            find: "apiVersion: networking.k8s.io/v1",
            with: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cilium-config\n  namespace: kube-system\ndata:\n  kube-proxy-replacement: "true"\n---\napiVersion: networking.k8s.io/v1',
          },
        },
        checks: [{ from: "external:203.0.113.10@node-a", to: "service:shop/web:80", verdict: "drop" }],
      },
    },
  ],
  [
    cascade,
    {
      id: "20-read-the-probability-cascade",
      title: "Read the probability cascade",
      rulesMode: "nftables",
      topics: ["iptables", "statistic", "load balancing"],
      goal: "Read how kube-proxy draws one backend among several, in nftables mode (one numgen draw) and in iptables mode (a cascade of statistic rules), and whether the client's node is preferred.",
      question:
        "web has 4 pods, 2 on node-a and 2 on node-b. In iptables mode, `ktl iptables --node node-a` shows the KUBE-SVC chain with --probability 0.25000000000, 0.33333333349, 0.50000000000 and a last rule with none. The client on node-a calls web:80: what chance does each pod get, and do node-a's pods get more?",
      answer:
        "Each pod gets exactly 1/4. The iptables rules are tried in order: the first takes 1/4 of all packets; the second takes 1/3 of the remaining 3/4 (= 1/4); the third 1/2 of the remaining 1/2 (= 1/4); the last takes what is left (1/4). The cascade is how iptables draws one of n evenly (probability 1/(n-i) for rule i); it prefers nothing, node-a's own pods included. nftables mode, which the Node rules tab opens in, draws the same way in one rule of the Service's chain: `numgen random mod 4 vmap { 0 : goto endpoint-…, 1 : …, 2 : …, 3 : … }`.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go writeServiceToEndpointRules (probability 1/(n-i), computeProbability)",
        "kubernetes/kubernetes pkg/proxy/nftables/proxier.go writeServiceToEndpointRules (numgen random mod n)",
        "https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-nftables",
      ],
      checks: [
        {
          from: "pod:shop/client",
          to: "service:shop/web:80",
          verdict: "allow",
          nodes: ["node-a", "node-b"],
          count: 4,
          kubeProxy: "forward",
        },
      ],
      edit: {
        description: "Scale web to 2 replicas.",
        lookFor:
          "The chain shrinks to --probability 0.50000000000 and a last rule: each of the 2 pods gets 1/2. One rule fewer per pod: the cascade always has n-1 statistic rules.",
        change: { whatIf: { kind: "scale", workload: "shop/Deployment/web", replicas: 2 } },
        checks: [
          {
            from: "pod:shop/client",
            to: "service:shop/web:80",
            verdict: "allow",
            count: 2,
            kubeProxy: "forward",
          },
        ],
      },
    },
  ],
  [
    hairpin,
    {
      id: "21-call-your-own-service-hairpin",
      title: "Call your own Service: hairpin",
      rulesMode: "nftables",
      topics: ["hairpin", "masquerade", "iptables"],
      goal: "Predict whether a pod reaches itself through its own Service, and which source address it sees when it does.",
      question:
        "web-0 is the only endpoint of web. web-0 calls web:80. Does the call come back to web-0, and which source address does it see?",
      answer:
        "It comes back to web-0, masqueraded. The endpoint's rules mark a packet whose source is the endpoint itself for masquerade (nftables: `ip saddr 10.244.1.2 jump mark-for-masquerade` in its endpoint chain; iptables: `-s <pod IP> -j KUBE-MARK-MASQ` in KUBE-SEP). Without it web-0 would answer itself directly, from its own address to its own address, and the reply would bypass the DNAT the client expects. The masquerade rewrites the source to the address of the interface the packet leaves by (MASQUERADE picks it from the route), not to a fixed node address: on a bridge CNI that is usually the bridge's own address in the pod range; ktl writes the node's address in its place. Whether the packet can go back out of the port it came in by at all is the bridge's business: kubelet's --hairpin-mode (hairpin-veth or promiscuous-bridge) or the bridge CNI plugin's hairpinMode; CNIs that do not use a bridge route it without one.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/nftables/proxier.go writeServiceToEndpointRules (endpoint chain: ip saddr <endpoint IP> jump mark-for-masquerade)",
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go writeServiceToEndpointRules (KUBE-SEP: -s endpoint IP -j KUBE-MARK-MASQ)",
        "https://kubernetes.io/docs/tasks/debug/debug-application/debug-service/#a-pod-fails-to-reach-itself-via-the-service-ip (hairpin mode of bridge networks)",
        "https://git.netfilter.org/iptables/tree/extensions/libxt_MASQUERADE.man (the source becomes the address of the interface the packet is going out by)",
        "https://github.com/containernetworking/plugins/blob/main/plugins/main/bridge/bridge.go NetConf.HairpinMode (the bridge CNI plugin's hairpinMode)",
      ],
      checks: [
        {
          from: "pod:shop/web-0",
          to: "service:shop/web:80",
          verdict: "allow",
          endpoints: ["shop/web-0"],
          sourceIPPreserved: false,
          kubeProxy: "forward",
        },
      ],
      edit: {
        description: "Scale web to 2 replicas.",
        lookFor:
          "web-0 now lands on itself (masqueraded) or on web-1 (keeping its own address), each with chance 1/2: the masquerade applies to the hairpin branch only.",
        change: { whatIf: { kind: "scale", workload: "shop/StatefulSet/web", replicas: 2 } },
        checks: [
          {
            from: "pod:shop/web-0",
            to: "service:shop/web:80",
            verdict: "allow",
            endpoints: ["shop/web-0", "shop/web-1"],
            kubeProxy: "forward",
          },
        ],
      },
    },
  ],
  [
    sourceRanges,
    {
      id: "22-filter-clients-with-source-ranges",
      title: "Filter clients with loadBalancerSourceRanges",
      rulesMode: "nftables",
      topics: ["loadBalancerSourceRanges", "externalTrafficPolicy", "masquerade"],
      goal: "Predict which clients a LoadBalancer with loadBalancerSourceRanges admits when its externalTrafficPolicy is Cluster, and where the ranges are checked.",
      question:
        "partner-api admits 203.0.113.0/24 through loadBalancerSourceRanges; externalTrafficPolicy is Cluster. Which of 203.0.113.10 and 198.51.100.99 gets through when its packet reaches node-a?",
      answer:
        "Only 203.0.113.10. The ranges are checked on the client's own address: by the cloud load balancer where it supports them, and on every node by kube-proxy's firewall for packets still addressed to the load balancer's IP 198.51.100.40 (nftables: the map firewall-ips sends them to a firewall chain with `ip saddr != 203.0.113.0/24 drop`; iptables: a KUBE-FW chain), which runs before the masquerade. 198.51.100.99 is dropped there. 203.0.113.10 is admitted, then masqueraded to node-a's address on its way to the pod on node-b: a NetworkPolicy ipBlock for 203.0.113.0/24 at the pod would not have matched (lesson 08). The firewall sees only packets addressed to the load balancer's IP: a client that reaches the Service's node port on a node's address is not filtered by it (lesson 37), and a load balancer that sends packets to node ports (one with a hostname, or ipMode Proxy) relies on its own filtering.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/nftables/proxier.go syncProxyRules (firewall-ips map: destinations that are subject to LoadBalancerSourceRanges)",
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go syncProxyRules (KUBE-FW-* firewall chain, loadBalancerSourceRanges)",
        "kubernetes/kubernetes pkg/proxy/serviceport.go newBaseServiceInfo (spec.loadBalancerSourceRanges; only ingress IPs with ipMode VIP)",
        "https://kubernetes.io/docs/tasks/access-application-cluster/configure-cloud-provider-firewall/",
      ],
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "service:shop/partner-api:443",
          verdict: "allow",
          count: 1,
          sourceIPPreserved: false,
          hops: ["loadBalancerSourceRanges"],
        },
        {
          from: "external:198.51.100.99@node-a",
          to: "service:shop/partner-api:443",
          verdict: "drop",
          hops: ["loadBalancerSourceRanges"],
        },
      ],
      edit: {
        description: "Delete partner-api's loadBalancerSourceRanges.",
        lookFor:
          "198.51.100.99 gets through too: with no ranges, kube-proxy writes no firewall chain and the load balancer admits anyone.",
        change: { replace: { find: "  loadBalancerSourceRanges:\n    - 203.0.113.0/24\n", with: "" } },
        checks: [
          {
            from: "external:198.51.100.99@node-a",
            to: "service:shop/partner-api:443",
            verdict: "allow",
            count: 1,
          },
        ],
      },
    },
  ],
  [
    crossZone,
    {
      id: "23-watch-hints-cross-zones",
      title: "Follow topology hints across uneven zones",
      topics: ["topology-mode", "hints", "PreferSameZone", "zones"],
      goal: "Predict which endpoints clients in two zones reach when topology-mode: Auto hints a Service whose pods are spread unevenly over zones of different size, and compare with PreferSameZone.",
      question:
        "catalog has topology-mode: Auto. zone-a has 8 CPUs and 1 catalog pod, zone-b 4 CPUs and 2 pods. Which endpoints do client-a (zone-a) and client-b (zone-b) reach?",
      answer:
        "client-a reaches catalog-a1 and one zone-b pod; client-b reaches the other zone-b pod only. The EndpointSlice controller gives each zone a share of the 3 endpoints in proportion to its allocatable CPU: zone-a 2, zone-b 1. zone-b has one pod more than its share, so the controller hints one of its pods for zone-a: half of client-a's calls cross zones, on purpose, so that zone-b's pods are not overloaded by zone-a's clients. Which zone-b pod moves is not a property of the pods: the controller walks the slice's endpoints in order and re-hints the first one of the giving zone (here catalog-b1, so ktl's checks name it); with the endpoints in another order catalog-b2 would move instead.",
      sources: [
        "kubernetes/kubernetes staging/src/k8s.io/endpointslice/topologycache/topologycache.go AddHints, getAllocations, redistributeHints",
        "https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/",
        "KEP-2433 (topology aware hints)",
      ],
      checks: [
        {
          from: "pod:shop/client-a",
          to: "service:shop/catalog:80",
          verdict: "allow",
          endpoints: ["shop/catalog-a1", "shop/catalog-b1"],
        },
        {
          from: "pod:shop/client-b",
          to: "service:shop/catalog:80",
          verdict: "allow",
          endpoints: ["shop/catalog-b2"],
        },
      ],
      edit: {
        description: "Replace the topology-mode annotation by trafficDistribution: PreferSameZone.",
        lookFor:
          "Now every endpoint is hinted for its own zone: client-a reaches only catalog-a1, client-b both zone-b pods. PreferSameZone never sends a client across zones while its zone has an endpoint, whatever the CPU: one zone-a pod takes all of zone-a's traffic.",
        change: {
          replace: {
            find: "  annotations:\n    service.kubernetes.io/topology-mode: Auto\nspec:\n",
            with: "spec:\n  trafficDistribution: PreferSameZone\n",
          },
        },
        checks: [
          {
            from: "pod:shop/client-a",
            to: "service:shop/catalog:80",
            verdict: "allow",
            endpoints: ["shop/catalog-a1"],
          },
          {
            from: "pod:shop/client-b",
            to: "service:shop/catalog:80",
            verdict: "allow",
            endpoints: ["shop/catalog-b1", "shop/catalog-b2"],
          },
        ],
      },
    },
  ],
  [
    lbInside,
    {
      id: "24-call-a-load-balancer-from-inside",
      title: "Call a load balancer's IP from inside the cluster",
      topics: ["LoadBalancer", "externalTrafficPolicy", "short-circuit"],
      goal: "Predict whether a pod and an external client reach a LoadBalancer with externalTrafficPolicy: Local through its IP, from a node that runs none of its pods, and what the load balancer's status decides.",
      question:
        "web (externalTrafficPolicy: Local) runs only on node-a. The client pod on node-b calls the load balancer's IP 198.51.100.50:80, and an external client's packet lands on node-b. Which reaches web?",
      answer:
        "The pod's call does; the external packet does not. The load balancer's status gives an ip with ipMode VIP (the default), so kube-proxy on every node captures traffic to 198.51.100.50 itself, and for a Local Service it sends pod traffic to that address to the Service's cluster-wide endpoints, unmasqueraded, as if the packet had gone out to the load balancer and come back: it reaches web on node-a. The external packet gets the Local policy: node-b has no local endpoint, so kube-proxy drops it (and the load balancer's health check, 503 on node-b, keeps such packets away). kube-proxy captures the address only in that case: a load balancer that reports a hostname, or an ip with ipMode Proxy, is not captured, so the pod's packet really leaves for the load balancer and comes back through a node port like any client's.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go syncProxyRules (KUBE-EXT chain: pod traffic for a Local Service's external destinations jumps to the cluster chain)",
        "kubernetes/kubernetes pkg/proxy/serviceport.go newBaseServiceInfo (only status.loadBalancer.ingress entries with an ip and ipMode VIP are captured)",
        "https://kubernetes.io/docs/concepts/services-networking/service/#load-balancer-ip-mode",
        "kubernetes/kubernetes pkg/proxy/healthcheck/service_health.go",
      ],
      checks: [
        {
          from: "pod:shop/client",
          to: "ip:198.51.100.50:80",
          verdict: "allow",
          nodes: ["node-a"],
          count: 1,
          sourceIPPreserved: true,
        },
        {
          from: "external:203.0.113.10@node-b",
          to: "service:shop/web:80",
          verdict: "drop",
          kubeProxy: "drop",
        },
      ],
      edit: {
        description: "Switch web's externalTrafficPolicy to Cluster.",
        lookFor:
          "The external packet on node-b is forwarded to web on node-a now, masqueraded to node-b's address. The pod's call is unchanged.",
        change: {
          whatIf: {
            kind: "trafficPolicy",
            service: "shop/web",
            field: "externalTrafficPolicy",
            value: "Cluster",
          },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-b",
            to: "service:shop/web:80",
            verdict: "allow",
            nodes: ["node-a"],
            sourceIPPreserved: false,
          },
          {
            from: "pod:shop/client",
            to: "ip:198.51.100.50:80",
            verdict: "allow",
            nodes: ["node-a"],
            count: 1,
          },
        ],
      },
    },
  ],
  [
    gatewayCanary,
    {
      id: "25-split-a-canary-through-a-gateway",
      title: "Split a canary through a Gateway",
      sources: [
        "https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/shared_types.go BackendRef.Weight (a backend's share is its weight over the sum of the rule's weights)",
        "https://github.com/istio/istio/blob/master/pilot/pkg/config/kube/gatewaycommon/deploymentcontroller.go (the Gateway's data plane: pods and a Service labelled gateway.networking.k8s.io/gateway-name)",
        "kubernetes/kubernetes pkg/proxy/healthcheck/service_health.go (externalTrafficPolicy Local: 200 on healthCheckNodePort where a local endpoint runs, 503 elsewhere)",
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/",
      ],
      topics: ["Gateway API", "HTTPRoute", "L7", "canary", "externalTrafficPolicy"],
      goal: "Follow a request through a Gateway: which nodes reach the gateway at all, how the HTTPRoute's weights and each Service's endpoints share the requests, and who NetworkPolicy sees as the client on the hop to each backend.",
      question:
        "The gateway's Service web-gw-istio has externalTrafficPolicy: Local, and its one pod runs on node-a. The HTTPRoute web sends 90 to web-stable and 10 to web-canary; web-stable has 2 pods, web-canary 1, and web-from-gateway admits only the Gateway's pods. What share of requests does each pod get, and what happens to a client's packet that arrives at node-b?",
      answer:
        "Local comes first, below the router: the load balancer's health check finds a gateway pod only on node-a (healthCheckNodePort answers 200 there, 503 on node-b), so clients are sent to node-a, and a packet that reaches node-b anyway is dropped by kube-proxy before any proxy sees it, so there is no HTTP status at all. On node-a the packet keeps the client's address 203.0.113.10 up to the gateway pod (what Local is for). Then the route picks a Service: web-stable gets 90% and web-canary 10% (weight over the sum of the rule's weights). The gateway's proxy spreads each Service's share over its ready endpoints: each web-stable pod gets 45%, the canary pod 10%; the probabilities multiply down the path. The proxy opens the connection to the pod itself, so NetworkPolicy sees the gateway pod (10.244.1.2) as the client, not 203.0.113.10: web-from-gateway admits it, and all three pods answer (HTTP 200). A policy that admitted only the external client's range would drop every request here.",
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "gateway:shop/web-gw:80",
          http: "GET /",
          verdict: "allow",
          httpStatus: 200,
          count: 3,
          backends: { "shop/web-stable:8080": 0.9, "shop/web-canary:8080": 0.1 },
          hops: ["load balancer health check", "listener", "route", "backend"],
          says: "externalTrafficPolicy Local keeps the client's source address",
        },
        {
          from: "external:203.0.113.10@node-b",
          to: "gateway:shop/web-gw:80",
          http: "GET /",
          verdict: "drop",
          kubeProxy: "drop",
          hops: ["load balancer health check"],
          says: "node-b answers 503 on healthCheckNodePort",
        },
      ],
      edit: {
        description: "Move the canary to half the traffic: weights 50 and 50.",
        lookFor:
          "Each Service now takes half: each web-stable pod 25%, the canary pod 50%. One pod behind a weight of 50 works as hard as two behind 100.",
        change: {
          replace: {
            find: "          weight: 90\n        - name: web-canary\n          port: 8080\n          weight: 10",
            with: "          weight: 50\n        - name: web-canary\n          port: 8080\n          weight: 50",
          },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-a",
            to: "gateway:shop/web-gw:80",
            http: "GET /",
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/web-stable:8080": 0.5, "shop/web-canary:8080": 0.5 },
          },
        ],
      },
    },
  ],
  [
    ingress404,
    {
      id: "26-find-why-an-ingress-answers-404",
      title: "Match a request to an Ingress rule",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/ingress/#examples (pathType Prefix matches element by element: /api matches /api/orders, not /apiv2/orders)",
        "https://kubernetes.io/docs/concepts/services-networking/ingress/#name-based-virtual-hosting (a rule with a host serves that host only)",
        "https://github.com/kubernetes/ingress-nginx/blob/main/docs/user-guide/default-backend.md (a request no rule serves goes to the default backend, which answers 404)",
        "https://kubernetes.io/blog/2025/11/11/ingress-nginx-retirement/ (best-effort maintenance until March 2026, then retired)",
      ],
      topics: ["Ingress", "L7", "404"],
      goal: "Predict what requests for different hosts and paths get from an Ingress with one host rule and one path, and who answers a request that no rule serves.",
      question:
        "The Ingress shop serves host shop.example.com with one path, /api (Prefix), to Service api. What do GET /api/orders for shop.example.com, GET /api/orders for www.shop.example.com and GET /apiv2/orders for shop.example.com get?",
      answer:
        "Only the first reaches api (200). www.shop.example.com is another host: the rule's host must equal the Host header (a wildcard would match one label only), so no rule serves it and the controller's default backend answers 404. /apiv2/orders has the right host, but Prefix compares whole path elements: /api matches /api and /api/orders, not /apiv2. The connections all open: the controller answers the 404 itself. The lesson follows ingress-nginx's conventions, and ingress-nginx was retired in March 2026 (no more releases or security fixes after its best-effort maintenance ended): the Ingress rules' semantics are the API's and hold for any controller, but for a new cluster prefer another Ingress controller or Gateway API (lessons 25, 29, 36).",
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "ingress:shop/shop:80",
          http: "GET /api/orders",
          headers: ["Host: shop.example.com"],
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/api:8080": 1 },
        },
        {
          from: "external:203.0.113.10@node-a",
          to: "ingress:shop/shop:80",
          http: "GET /api/orders",
          headers: ["Host: www.shop.example.com"],
          verdict: "drop",
          httpStatus: 404,
        },
        {
          from: "external:203.0.113.10@node-a",
          to: "ingress:shop/shop:80",
          http: "GET /apiv2/orders",
          headers: ["Host: shop.example.com"],
          verdict: "drop",
          httpStatus: 404,
        },
      ],
      edit: {
        description: "Drop the host from the rule, so that it serves every host.",
        lookFor:
          "www.shop.example.com now reaches api too. /apiv2/orders still gets 404: the path rule, not the host, refuses it.",
        change: {
          replace: { find: "    - host: shop.example.com\n      http:", with: "    - http:" },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-a",
            to: "ingress:shop/shop:80",
            http: "GET /api/orders",
            headers: ["Host: www.shop.example.com"],
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/api:8080": 1 },
          },
          {
            from: "external:203.0.113.10@node-a",
            to: "ingress:shop/shop:80",
            http: "GET /apiv2/orders",
            headers: ["Host: shop.example.com"],
            verdict: "drop",
            httpStatus: 404,
          },
        ],
      },
    },
  ],
  [
    adminDeny,
    {
      id: "27-hold-an-admin-deny-over-every-namespace",
      title: "Put an Admin tier above a namespace's policy",
      sources: [
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/apis/v1alpha2/clusternetworkpolicy_types.go ClusterNetworkPolicySpec.Tier (the Admin tier is evaluated first; its Accept or Deny is final and cannot be overridden in the other tiers)",
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/conformance/tests/admin-network-policy-standard-integration.go CNPAdminTierIntegration (an admin Deny holds over a NetworkPolicy that allows)",
      ],
      topics: ["ClusterNetworkPolicy", "Admin tier", "Deny", "NetworkPolicy"],
      goal: "Predict what a cluster-scoped Admin tier policy does to traffic that a namespace's own NetworkPolicy allows.",
      question:
        "shop's own NetworkPolicy api-allow-web-and-testers admits web and every pod of a sandbox namespace to api. The platform's ClusterNetworkPolicy isolate-sandbox (Admin tier) denies traffic from sandbox namespaces into prod ones. Can sandbox's tester reach api on 8080? Can web?",
      answer:
        "tester cannot: the Admin tier is evaluated before NetworkPolicy, and its Deny is final, so shop's NetworkPolicy is never consulted; the drop names the Admin tier, isolate-sandbox and its rule deny-from-sandbox. web can: no Admin rule matches it, so the decision falls to shop's NetworkPolicy, which admits it.",
      checks: [
        {
          from: "pod:sandbox/tester",
          to: "service:shop/api:80",
          verdict: "drop",
          says: "Admin tier: Deny by ClusterNetworkPolicy isolate-sandbox",
        },
        { from: "pod:shop/web", to: "service:shop/api:80", verdict: "allow" },
      ],
      edit: {
        description: "In isolate-sandbox, turn the rule's Deny into Pass.",
        lookFor:
          "tester now reaches api: a Pass decides nothing itself, it hands the connection to the next tier, and there shop's NetworkPolicy admits sandbox namespaces. The platform delegated the decision instead of making it.",
        change: { replace: { find: "      action: Deny", with: "      action: Pass" } },
        checks: [
          {
            from: "pod:sandbox/tester",
            to: "service:shop/api:80",
            verdict: "allow",
            says: "Admin tier: Pass by ClusterNetworkPolicy isolate-sandbox",
          },
          { from: "pod:shop/web", to: "service:shop/api:80", verdict: "allow" },
        ],
      },
    },
  ],
  [
    passToBaseline,
    {
      id: "28-pass-to-the-namespace-with-a-baseline-behind",
      title: "Pass to the namespace, with a Baseline behind it",
      sources: [
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/apis/v1alpha2/clusternetworkpolicy_types.go ClusterNetworkPolicyRuleActionPass (skips the rest of the tier, evaluation goes on in the next) and ClusterNetworkPolicySpec.Tier (NetworkPolicy decides for the pods it selects; the Baseline tier only for the others)",
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/conformance/tests/admin-network-policy-standard-integration.go CNPAdminTierIntegration (pass-ingress, then the network policy's match, or the baseline's)",
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/apis/v1alpha1/ AdminNetworkPolicy and BaselineAdminNetworkPolicy (v1alpha1: the same two tiers, the baseline named default)",
      ],
      topics: ["AdminNetworkPolicy", "BaselineAdminNetworkPolicy", "Pass", "NetworkPolicy"],
      goal: "Follow a Pass from the Admin tier through the namespace's NetworkPolicy to the Baseline tier, and predict which of them decides each connection.",
      question:
        "The Admin tier's delegate-billing passes billing's traffic into payments on to payments' own policies; payments' NetworkPolicy api-allow-billing admits billing to api and says nothing about vault; the Baseline tier's default denies everything into payments. On 8080: can invoicer (billing) reach api? vault? Can frontend (web) reach api?",
      answer:
        "invoicer reaches api: the Admin tier passes it on, and api-allow-billing admits it. invoicer does not reach vault: the Pass hands it on, but no NetworkPolicy selects vault, so the Baseline tier decides, and default denies it. frontend does not reach api: no Admin rule matches, and api-allow-billing isolates api and admits only billing; the NetworkPolicy's drop is final, the Baseline tier is never consulted.",
      checks: [
        {
          from: "pod:billing/invoicer",
          to: "pod:payments/api:8080",
          verdict: "allow",
          says: "Admin tier: Pass by AdminNetworkPolicy delegate-billing",
        },
        {
          from: "pod:billing/invoicer",
          to: "pod:payments/vault:8080",
          verdict: "drop",
          says: "Baseline tier: Deny by BaselineAdminNetworkPolicy default",
        },
        {
          from: "pod:web/frontend",
          to: "pod:payments/api:8080",
          verdict: "drop",
          says: "isolated for ingress by payments/api-allow-billing",
        },
      ],
      edit: {
        description: "Make api-allow-billing select every pod of payments (podSelector: {}).",
        lookFor:
          "invoicer now reaches vault: a NetworkPolicy governs vault, so its allow is final and the Baseline tier is never consulted. frontend to vault is still dropped, now by the NetworkPolicy instead of the Baseline.",
        change: {
          replace: {
            find: "  podSelector:\n    matchLabels:\n      app: api\n  policyTypes:",
            with: "  podSelector: {}\n  policyTypes:",
          },
        },
        checks: [
          { from: "pod:billing/invoicer", to: "pod:payments/vault:8080", verdict: "allow" },
          {
            from: "pod:web/frontend",
            to: "pod:payments/vault:8080",
            verdict: "drop",
            says: "isolated for ingress by payments/api-allow-billing",
          },
        ],
      },
    },
  ],
  [
    routePrecedence,
    {
      id: "29-find-which-httproute-rule-wins",
      title: "Find which HTTPRoute rule wins",
      sources: [
        "https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/httproute_types.go HTTPRouteRule.Matches (precedence across all rules: Exact path, then the longest PathPrefix, then method, then most header matches, then most query param matches; then the oldest Route, then namespace/name; list order only within one Route)",
        "https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/httproute_types.go HTTPPathMatch (PathPrefix matches element by element: /api matches /api/orders, not /apiary)",
        "https://github.com/kubernetes-sigs/gateway-api/blob/main/conformance/tests/httproute-matching.go (HTTPRouteMatching: path and header precedence)",
      ],
      topics: ["Gateway API", "HTTPRoute", "L7", "precedence"],
      goal: "Predict which HTTPRoute rule serves a request when several rules match it, and what list order has to do with it.",
      question:
        "The HTTPRoute shop lists its catch-all PathPrefix / first, then PathPrefix /api, then PathPrefix /api for POST only. Where do GET /api/orders, POST /api/orders and GET /apiary go?",
      answer:
        "GET /api/orders goes to api, even though the catch-all is listed first: Gateway API does not take the first rule that matches but ranks every match, and a longer PathPrefix (/api, 4 characters) beats a shorter one (/, 1). POST /api/orders goes to api-writer: its rule and the api rule tie on the prefix, and a method match breaks the tie. GET /apiary goes to web: a PathPrefix matches whole path elements, so /api matches /api and /api/orders but not /apiary. List order decides only when every criterion ties, and only within one HTTPRoute; across Routes the oldest creationTimestamp, then namespace/name, decide.",
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "gateway:shop/web-gw:80",
          http: "GET /api/orders",
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/api:8080": 1 },
          says: "HTTPRoute shop/shop rule 2 (api) matches",
        },
        {
          from: "external:203.0.113.10@node-a",
          to: "gateway:shop/web-gw:80",
          http: "POST /api/orders",
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/api-writer:8080": 1 },
          says: "HTTPRoute shop/shop rule 3 (api-writes) matches",
        },
        {
          from: "external:203.0.113.10@node-a",
          to: "gateway:shop/web-gw:80",
          http: "GET /apiary",
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/web:8080": 1 },
          says: "HTTPRoute shop/shop rule 1 (everything-else) matches",
        },
      ],
      edit: {
        description: "Give the catch-all rule a method match too: method GET on PathPrefix /.",
        lookFor:
          "GET /api/orders still goes to api: the prefix's length is compared before the method, so a method match cannot beat a longer prefix. And POST /about now gets 404: no rule matches it any more.",
        change: {
          replace: {
            find: "        - path: { type: PathPrefix, value: / }\n",
            with: "        - path: { type: PathPrefix, value: / }\n          method: GET\n",
          },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-a",
            to: "gateway:shop/web-gw:80",
            http: "GET /api/orders",
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/api:8080": 1 },
          },
          {
            from: "external:203.0.113.10@node-a",
            to: "gateway:shop/web-gw:80",
            http: "POST /about",
            verdict: "drop",
            httpStatus: 404,
          },
        ],
      },
    },
  ],
  [
    registryOnly,
    {
      id: "30-admit-an-external-host-with-a-serviceentry",
      title: "Call an external host from the mesh",
      sources: [
        "https://github.com/istio/istio.io/blob/master/content/en/docs/tasks/traffic-management/egress/egress-control/index.md (REGISTRY_ONLY: the sidecar blocks any host without an HTTP service or service entry in the mesh)",
        "https://github.com/istio/api/blob/master/mesh/v1alpha1/config.proto OutboundTrafficPolicy (ALLOW_ANY by default; REGISTRY_ONLY drops unknown outbound traffic)",
        "https://github.com/istio/istio/blob/master/pilot/pkg/networking/core/httproute.go (the BlackHole virtual host: a 502 direct response on an HTTP port)",
        "https://github.com/istio/api/blob/master/networking/v1alpha3/service_entry.proto ServiceEntry (adds a host to the mesh's registry)",
      ],
      topics: ["Istio", "ServiceEntry", "outboundTrafficPolicy", "L7", "egress"],
      goal: "Predict what a pod with an Istio sidecar gets when it calls a host outside the cluster and a Service inside it, under the mesh's outbound traffic policy.",
      question:
        "The mesh config (ConfigMap istio in istio-system) sets outboundTrafficPolicy REGISTRY_ONLY, and no NetworkPolicy exists. checkout, which has a sidecar, calls http://httpbin.org/headers and the in-cluster Service orders. What does each call get?",
      answer:
        "httpbin.org is blocked in checkout's own sidecar: under REGISTRY_ONLY the sidecar sends a host that is neither a Service nor a ServiceEntry host to its BlackHoleCluster, which answers 502 on an HTTP port (a closed connection otherwise). No packet leaves the pod, so no NetworkPolicy, node or firewall is involved, and ALLOW_ANY (Istio's default) would have let it through. orders is a Service, so it is in the registry and answered as usual (HTTP 200).",
      checks: [
        {
          from: "pod:shop/checkout",
          to: "host:httpbin.org:80",
          http: "GET /headers",
          verdict: "drop",
          httpStatus: 502,
          says: "the outbound traffic policy is REGISTRY_ONLY",
        },
        {
          from: "pod:shop/checkout",
          to: "service:shop/orders:80",
          http: "GET /orders/1",
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/orders:80": 1 },
        },
      ],
      edit: {
        description: "Admit httpbin.org: add a ServiceEntry for it (MESH_EXTERNAL, port 80 HTTP).",
        lookFor:
          "The same request now leaves the sidecar: the ServiceEntry put httpbin.org in the registry, and REGISTRY_ONLY lets registered hosts out. What httpbin.org answers is outside the cluster, so ktl says allowed without a status.",
        change: {
          replace: {
            find: "      port: 80\n      targetPort: http\n",
            with: "      port: 80\n      targetPort: http\n---\n# Puts httpbin.org in the mesh's registry, so REGISTRY_ONLY lets it out.\napiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: httpbin\n  namespace: shop\nspec:\n  hosts: [httpbin.org]\n  location: MESH_EXTERNAL\n  resolution: DNS\n  ports:\n    - { number: 80, name: http, protocol: HTTP }\n",
          },
        },
        checks: [
          {
            from: "pod:shop/checkout",
            to: "host:httpbin.org:80",
            http: "GET /headers",
            verdict: "allow",
            says: "ServiceEntry shop/httpbin registers httpbin.org",
          },
        ],
      },
    },
  ],
  [
    istioHeader,
    {
      id: "31-route-by-header-with-an-istio-virtualservice",
      title: "Route by header with an Istio VirtualService",
      sources: [
        "https://github.com/istio/api/blob/master/networking/v1alpha3/virtual_service.proto HTTPRoute (routes are tried in order, the first match wins) and HTTPMatchRequest.headers (exact is case-sensitive)",
        "https://github.com/istio/api/blob/master/networking/v1alpha3/destination_rule.proto Subset (a subset is the Service's pods with its labels)",
      ],
      topics: ["Istio", "VirtualService", "L7", "headers"],
      goal: "Predict where a VirtualService with a header match sends requests with and without the header, and where the choice is made.",
      question:
        "productpage (with a sidecar) calls reviews. The VirtualService sends requests with end-user: jason to subset v2 and the rest to v1. Where do a request from jason, one from Jason and one with no end-user header go?",
      answer:
        "jason's request matches the first route, testers, and goes to v2. Jason's does not: exact compares the value as written, case included, so it falls to everyone-else and v1, like the request without the header. The choice is made in productpage's sidecar before any packet leaves the pod; kube-proxy's random pick among all reviews pods never happens.",
      checks: [
        {
          from: "pod:shop/productpage",
          to: "service:shop/reviews:9080",
          http: "GET /reviews/1",
          headers: ["end-user: jason"],
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/reviews:9080#v2": 1 },
        },
        {
          from: "pod:shop/productpage",
          to: "service:shop/reviews:9080",
          http: "GET /reviews/1",
          headers: ["end-user: Jason"],
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/reviews:9080#v1": 1 },
        },
        {
          from: "pod:shop/productpage",
          to: "service:shop/reviews:9080",
          http: "GET /reviews/1",
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/reviews:9080#v1": 1 },
        },
      ],
      edit: {
        description:
          "Send a fifth of everyone else to v2 as well: weights 80 (v1) and 20 (v2) on the last route.",
        lookFor:
          "A request without the header now goes to v1 with 80% and v2 with 20%; jason still always gets v2, because his route comes first.",
        change: {
          replace: {
            find: "        - destination: { host: reviews, subset: v1 }\n",
            with: "        - destination: { host: reviews, subset: v1 }\n          weight: 80\n        - destination: { host: reviews, subset: v2 }\n          weight: 20\n",
          },
        },
        checks: [
          {
            from: "pod:shop/productpage",
            to: "service:shop/reviews:9080",
            http: "GET /reviews/1",
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/reviews:9080#v1": 0.8, "shop/reviews:9080#v2": 0.2 },
          },
          {
            from: "pod:shop/productpage",
            to: "service:shop/reviews:9080",
            http: "GET /reviews/1",
            headers: ["end-user: jason"],
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/reviews:9080#v2": 1 },
          },
        ],
      },
    },
  ],
  [
    flannel,
    {
      id: "32-apply-a-policy-on-flannel",
      title: "Apply a NetworkPolicy on a flannel cluster",
      topics: ["NetworkPolicy", "flannel", "cluster profile"],
      goal: "Predict what a default deny and one allow rule do on a cluster whose network plugin is flannel.",
      question:
        "The cluster runs flannel (its ConfigMap kube-flannel/kube-flannel-cfg is in the input). In shop, default-deny-ingress isolates every pod and db-allow-api admits only api to db on 5432. Which of shop/api and shop/web can connect to db on 5432?",
      answer:
        "Both. flannel gives pods their network and nothing else: it enforces no NetworkPolicy, so the apiserver accepts both policies and nothing on the nodes acts on them. web reaches db as if the policies did not exist, and nothing reports it: no event, no status on the NetworkPolicy. ktl reads the profile from the flannel ConfigMap and says so in the trace (the toolbar's CNI picker shows it too). Policies need a plugin that implements them: Calico or Cilium in place of flannel, or a policy engine beside it (Canal runs Calico's policy engine on flannel's network).",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#prerequisites (creating a NetworkPolicy without a controller that implements it has no effect)",
        "https://github.com/flannel-io/flannel/blob/master/README.md (flannel is focused on networking; for network policy, other projects such as Calico can be used)",
        "https://docs.tigera.io/calico/latest/getting-started/kubernetes/flannel/install-for-flannel (Calico for policy with flannel for networking)",
      ],
      checks: [
        { from: "pod:shop/api", to: "pod:shop/db:5432", verdict: "allow" },
        {
          from: "pod:shop/web",
          to: "pod:shop/db:5432",
          verdict: "allow",
          says: "which enforces no NetworkPolicy",
        },
      ],
      edit: {
        description:
          "Run Calico instead: replace flannel's ConfigMap by Calico's calico-config in kube-system (ktl reads the profile from it).",
        lookFor:
          "web is dropped now, by the same two policies: Calico enforces them. api still reaches db through db-allow-api. Nothing in the policies changed; only the plugin that reads them did.",
        change: {
          replace: {
            find: "  name: kube-flannel-cfg\n  namespace: kube-flannel\n",
            with: "  name: calico-config\n  namespace: kube-system\n",
          },
        },
        checks: [
          { from: "pod:shop/web", to: "pod:shop/db:5432", verdict: "drop" },
          { from: "pod:shop/api", to: "pod:shop/db:5432", verdict: "allow" },
        ],
      },
    },
  ],
  [
    hostNetworkPeers,
    {
      id: "33-admit-a-host-network-pod",
      title: "Admit a host-network pod by its namespace",
      topics: ["NetworkPolicy", "hostNetwork", "namespaceSelector"],
      goal: "Predict which clients a namespaceSelector admits when some pods of that namespace run in their node's network (hostNetwork: true).",
      question:
        "api (on node-a) is isolated by api-allow-monitoring, which admits every pod of namespace monitoring on 8080. In monitoring, prometheus runs on the pod network on node-b; scraper-a (node-a) and scraper-b (node-b) run with hostNetwork: true. Which of the three can connect to api on 8080?",
      answer:
        "prometheus and scraper-a; scraper-b is dropped. A hostNetwork pod has no address of its own: its packets carry its node's address, 192.168.10.12 for scraper-b. Kubernetes leaves NetworkPolicy for hostNetwork pods undefined, and most plugins (the usual case, and ktl's generic profile) cannot tell its traffic from the node's, so they ignore hostNetwork pods when matching podSelector and namespaceSelector: the namespaceSelector matches prometheus and not scraper-b. scraper-a gets in for another reason: it sends from node-a, api's own node, and a pod's own node is always admitted. The fix is to admit the nodes' addresses with an ipBlock, as the docs suggest; with Cilium that is not enough by default, because CIDR rules do not select nodes unless policy-cidr-match-mode includes nodes (use the remote-node entity in a CiliumNetworkPolicy instead; ktl's cilium profile does not model that setting). All of this needs a plugin that enforces NetworkPolicy.",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#networkpolicy-and-hostnetwork-pods (behaviour undefined; most plugins treat hostNetwork pod traffic as node traffic; an ipBlock rule can allow it)",
        "kubernetes/kubernetes staging/src/k8s.io/api/networking/v1/types.go NetworkPolicySpec.ingress (traffic from the pod's local node is allowed)",
        "https://docs.cilium.io/en/stable/security/policy/layer3/#selecting-nodes-with-cidr-ipblock (CIDR selectors do not match nodes by default)",
      ],
      checks: [
        { from: "pod:monitoring/prometheus", to: "pod:shop/api:8080", verdict: "allow" },
        {
          from: "pod:monitoring/scraper-a",
          to: "pod:shop/api:8080",
          verdict: "allow",
          says: "a pod's own node is always admitted",
        },
        { from: "pod:monitoring/scraper-b", to: "pod:shop/api:8080", verdict: "drop" },
      ],
      edit: {
        description: "Add a second peer to the rule: an ipBlock for the nodes' network, 192.168.10.0/24.",
        lookFor:
          "scraper-b gets in now, by its node's address. So would any other process or hostNetwork pod on any node, in any namespace: an ipBlock for node addresses admits the whole node, not a namespace.",
        change: {
          replace: {
            find: "              kubernetes.io/metadata.name: monitoring\n",
            with: "              kubernetes.io/metadata.name: monitoring\n        - ipBlock: { cidr: 192.168.10.0/24 }\n",
          },
        },
        checks: [
          { from: "pod:monitoring/scraper-b", to: "pod:shop/api:8080", verdict: "allow" },
          { from: "pod:monitoring/prometheus", to: "pod:shop/api:8080", verdict: "allow" },
        ],
      },
    },
  ],
  [
    apiServerEgress,
    {
      id: "34-reach-the-api-server-under-egress-deny",
      title: "Reach the API server under an egress policy",
      topics: ["NetworkPolicy", "egress", "kubernetes Service", "ipBlock"],
      goal: "Predict whether an egress rule for the kubernetes Service's ClusterIP lets a controller pod reach the API server.",
      question:
        "ops/operator finds the API at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, 10.96.0.1:443, the ClusterIP of default/kubernetes. operator-egress isolates it for egress and allows TCP 443 to 10.96.0.1/32. Can operator open a connection to 10.96.0.1:443?",
      answer:
        "No. Egress policy is checked after kube-proxy's DNAT, against the endpoint the packet actually goes to: default/kubernetes has no selector, its EndpointSlice (written by the apiserver) points at 192.168.10.5 port 6443, and no rule allows TCP/6443 to 192.168.10.5. The rule for the ClusterIP matches nothing, on any port. Allow the endpoint instead: an ipBlock for the apiserver's address (all of them, in a highly available control plane) on port 6443. How the endpoint is matched depends on the plugin: Calico matches the ipBlock; with Cilium an ipBlock does not select a node's address unless policy-cidr-match-mode includes nodes, and its docs point to the kube-apiserver entity instead (ktl's cilium profile does not model that setting). A managed control plane outside the nodes is an ordinary external address. No plugin enforcing NetworkPolicy, no drop.",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#behavior-of-ipblock-selectors (source and destination rewriting, before or after policy, is left to the implementation)",
        "kubernetes/client-go rest/config.go InClusterConfig (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT)",
        "kubernetes/kubernetes pkg/controlplane/reconcilers/endpointsadapter.go (the apiserver writes the endpoints of default/kubernetes)",
        "https://docs.cilium.io/en/stable/security/policy/layer3/#selecting-nodes-with-cidr-ipblock (ipBlock does not select nodes by default; the kube-apiserver entity)",
      ],
      checks: [
        {
          from: "pod:ops/operator",
          to: "ip:10.96.0.1:443",
          verdict: "drop",
          endpoints: ["192.168.10.5:6443"],
          says: "(the backend after DNAT, on its target port)",
        },
      ],
      edit: {
        description: "Point the rule at the endpoint: ipBlock 192.168.10.5/32, port 6443.",
        lookFor:
          "The same connection to 10.96.0.1:443 is allowed now: the rule names what the packet looks like after DNAT. A rule for both (the ClusterIP on 443 and the endpoint on 6443) is a common belt-and-braces, since plugins that filter before DNAT see the ClusterIP.",
        change: {
          replace: {
            find: "        - ipBlock: { cidr: 10.96.0.1/32 }\n      ports:\n        - { protocol: TCP, port: 443 }\n",
            with: "        - ipBlock: { cidr: 192.168.10.5/32 }\n      ports:\n        - { protocol: TCP, port: 6443 }\n",
          },
        },
        checks: [{ from: "pod:ops/operator", to: "ip:10.96.0.1:443", verdict: "allow" }],
      },
    },
  ],
  [
    calicoEndOfTier,
    {
      id: "35-end-a-calico-tier-without-a-verdict",
      title: "End a Calico tier without a verdict",
      topics: ["Calico", "Tier", "defaultAction", "GlobalNetworkPolicy"],
      goal: "Predict what a Calico tier does to traffic that one of its policies selects but no rule of the tier matches.",
      question:
        "The platform tier (order 100) has one GlobalNetworkPolicy, allow-monitoring: it selects all() and allows TCP 9090 from namespace monitoring. In the default tier, shop's NetworkPolicy api-allow-web admits web to api on 8080. Can shop/web connect to api on 8080? Can monitoring/prometheus connect to api on 9090?",
      answer:
        "prometheus can; web cannot. allow-monitoring selects every pod, api included, so the platform tier applies to api's ingress. web's connection matches none of its rules, and a tier that applies to an endpoint but takes no action on a packet drops it: the end of the tier is an implicit Deny, reached before the default tier where api-allow-web sits. A policy written only to allow one thing has denied everything else to every pod it selects. Give the tier defaultAction: Pass (or end the policy with a Pass rule), and traffic it does not decide goes on to the next tier.",
      sources: [
        "https://docs.tigera.io/calico/latest/reference/resources/tier#how-policy-is-evaluated (a tier that applies to the endpoint but takes no action drops the packet, unless its defaultAction is Pass)",
        "https://github.com/projectcalico/calico/blob/master/libcalico-go/lib/backend/k8s/conversion/conversion.go K8sNetworkPolicyToCalico (NetworkPolicies in the default tier)",
      ],
      checks: [
        {
          from: "pod:shop/web",
          to: "pod:shop/api:8080",
          verdict: "drop",
          says: "end of tier: Deny",
        },
        { from: "pod:monitoring/prometheus", to: "pod:shop/api:9090", verdict: "allow" },
      ],
      edit: {
        description: "Give the platform tier defaultAction: Pass.",
        lookFor:
          "web reaches api: the platform tier now hands what it does not decide to the default tier, where api-allow-web admits it. prometheus is still allowed by the platform tier itself.",
        change: {
          replace: {
            find: "  name: platform\nspec:\n  order: 100\n",
            with: "  name: platform\nspec:\n  order: 100\n  defaultAction: Pass\n",
          },
        },
        checks: [
          { from: "pod:shop/web", to: "pod:shop/api:8080", verdict: "allow" },
          { from: "pod:monitoring/prometheus", to: "pod:shop/api:9090", verdict: "allow" },
        ],
      },
    },
  ],
  [
    sharedGateway,
    {
      id: "36-attach-routes-across-namespaces",
      title: "Attach routes to a shared Gateway across namespaces",
      topics: ["Gateway API", "HTTPRoute", "allowedRoutes", "ReferenceGrant", "L7"],
      goal: "Predict what requests get when an HTTPRoute attaches to a Gateway in another namespace, and when a route sends to a Service in another namespace.",
      question:
        "The Gateway infra/shared-gw has one listener, http on port 80, with no allowedRoutes. shop's HTTPRoute store (hostname store.example.com) names it as its parent; infra's own HTTPRoute status sends /status to Service ops/status. What do GET / for store.example.com and GET /status get?",
      answer:
        "404 and 500. A listener admits routes from its own namespace unless allowedRoutes says otherwise (namespaces.from defaults to Same), so shop's route does not attach, whatever it says, and no attached rule matches GET / for store.example.com: the gateway answers 404. infra's route does attach and matches /status, but its backendRef points into namespace ops, and a reference across namespaces needs a ReferenceGrant in the target namespace; without one the backendRef is invalid (ResolvedRefs False, RefNotPermitted), and Gateway API requires a 500 for the requests it would have received. The connections open in both cases: the gateway answers.",
      sources: [
        "https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/gateway_types.go AllowedRoutes and RouteNamespaces.From (default Same: routes from the Gateway's namespace only)",
        "https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/httproute_types.go HTTPRouteRule.BackendRefs (an invalid backendRef gets 500) and HTTPBackendRef (a reference to another namespace needs a ReferenceGrant)",
        "https://gateway-api.sigs.k8s.io/api-types/referencegrant/",
      ],
      checks: [
        {
          from: "external:203.0.113.10@node-a",
          to: "gateway:infra/shared-gw:80",
          http: "GET /",
          headers: ["Host: store.example.com"],
          verdict: "drop",
          httpStatus: 404,
          says: "HTTPRoute shop/store does not attach",
        },
        {
          from: "external:203.0.113.10@node-a",
          to: "gateway:infra/shared-gw:80",
          http: "GET /status",
          verdict: "drop",
          httpStatus: 500,
          says: "no ReferenceGrant in ops permits HTTPRoutes from infra",
        },
      ],
      edit: {
        description:
          "Let the listener admit routes from every namespace: allowedRoutes.namespaces.from: All.",
        lookFor:
          "store.example.com reaches the store pods now (200). /status still gets 500: attaching is the Gateway's decision, but a reference into ops is ops' decision, made with a ReferenceGrant there. In a shared Gateway, prefer a Selector over All, so only labelled namespaces can attach.",
        change: {
          replace: {
            find: "    - name: http\n      port: 80\n      protocol: HTTP\n---\n# The data plane",
            with: "    - name: http\n      port: 80\n      protocol: HTTP\n      allowedRoutes:\n        namespaces:\n          from: All\n---\n# The data plane",
          },
        },
        checks: [
          {
            from: "external:203.0.113.10@node-a",
            to: "gateway:infra/shared-gw:80",
            http: "GET /",
            headers: ["Host: store.example.com"],
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/store:8080": 1 },
          },
          {
            from: "external:203.0.113.10@node-a",
            to: "gateway:infra/shared-gw:80",
            http: "GET /status",
            verdict: "drop",
            httpStatus: 500,
          },
        ],
      },
    },
  ],
  [
    nodePortBypass,
    {
      id: "37-go-around-source-ranges-through-a-nodeport",
      title: "Go around loadBalancerSourceRanges through a node port",
      topics: ["loadBalancerSourceRanges", "NodePort", "LoadBalancer", "nftables"],
      goal: "Predict whether loadBalancerSourceRanges protects a LoadBalancer Service from a client that connects to its node port instead of its load balancer.",
      rulesMode: "nftables",
      question:
        "partner-api is a LoadBalancer (198.51.100.40) with loadBalancerSourceRanges 203.0.113.0/24 and node port 30443. 198.51.100.99 connects to 198.51.100.40:443, then to node-a's address on the node port, 192.168.10.11:30443. Which connection reaches partner-api?",
      answer:
        "Only the second. kube-proxy filters the ranges for packets addressed to the load balancer's IP (nftables: the map firewall-ips, keyed by that address; iptables: the KUBE-FW chain that KUBE-SERVICES jumps to for it), so 198.51.100.99 is dropped at 198.51.100.40. The node port is another way in, and nothing filters it: kube-proxy sends it straight to the Service's external chain. loadBalancerSourceRanges protects the load balancer, not the Service: a request to apply it to node ports was closed without a change. Close the other way in: allocateLoadBalancerNodePorts: false (for load balancers that send to pods or to the LB IP, not to node ports), a node firewall or cloud security group, or externalTrafficPolicy: Local with a NetworkPolicy ipBlock at the pod. In nftables mode kube-proxy 1.35 serves node ports only on the node's primary address by default, which narrows the way in but does not close it.",
      sources: [
        "kubernetes/kubernetes pkg/proxy/nftables/proxier.go syncProxyRules (firewall-ips: destinations that are subject to LoadBalancerSourceRanges, keyed by the load balancer's IP)",
        "kubernetes/kubernetes pkg/proxy/iptables/proxier.go syncProxyRules (KUBE-FW-* only for the load balancer's IP; KUBE-NODEPORTS jumps to KUBE-EXT)",
        "https://github.com/kubernetes/kubernetes/issues/33586 (loadBalancerSourceRanges should apply to nodePort: closed without a change)",
        "https://kubernetes.io/docs/concepts/services-networking/service/#load-balancer-nodeport-allocation (allocateLoadBalancerNodePorts: false)",
        "https://github.com/kubernetes/kubernetes/issues/111863 (node ports on every local address; nftables mode listens on the primary address only)",
      ],
      checks: [
        {
          from: "external:198.51.100.99@node-a",
          to: "ip:198.51.100.40:443",
          verdict: "drop",
          hops: ["loadBalancerSourceRanges"],
        },
        {
          from: "external:198.51.100.99@node-a",
          to: "ip:192.168.10.11:30443",
          verdict: "allow",
          endpoints: ["shop/partner-api"],
          kubeProxy: "forward",
        },
      ],
      edit: {
        description:
          "Stop allocating node ports for it: allocateLoadBalancerNodePorts: false, and delete the nodePort line (the apiserver keeps an allocated port until it is removed).",
        lookFor:
          "192.168.10.11:30443 is no node port now: the packet reaches node-a's own network stack, where nothing of partner-api listens (ktl traces it to the node, with no endpoint). The load balancer's filter is unchanged. This works for load balancers that deliver to the LB IP or to pods; one that needs node ports would stop working.",
        change: {
          replace: {
            find: "  type: LoadBalancer\n  externalTrafficPolicy: Cluster\n  loadBalancerSourceRanges:\n    - 203.0.113.0/24\n  selector:\n    app: partner-api\n  ports:\n    - name: https\n      port: 443\n      targetPort: https\n      nodePort: 30443\n",
            with: "  type: LoadBalancer\n  allocateLoadBalancerNodePorts: false\n  externalTrafficPolicy: Cluster\n  loadBalancerSourceRanges:\n    - 203.0.113.0/24\n  selector:\n    app: partner-api\n  ports:\n    - name: https\n      port: 443\n      targetPort: https\n",
          },
        },
        checks: [
          {
            from: "external:198.51.100.99@node-a",
            to: "ip:192.168.10.11:30443",
            verdict: "allow",
            endpoints: ["192.168.10.11:30443"],
            kubeProxy: "none",
          },
          {
            from: "external:198.51.100.99@node-a",
            to: "ip:198.51.100.40:443",
            verdict: "drop",
            hops: ["loadBalancerSourceRanges"],
          },
        ],
      },
    },
  ],
  [
    undefinedSubset,
    {
      id: "38-route-to-an-undefined-subset",
      title: "Route to a subset of an Istio DestinationRule",
      topics: ["Istio", "VirtualService", "DestinationRule", "subset", "L7"],
      goal: "Predict what a VirtualService route to a named subset does when the subset it names is missing from the DestinationRule.",
      question:
        "productpage (with a sidecar) calls reviews. The VirtualService sends end-user: jason to subset v2 and everyone else to subset v1; the DestinationRule of reviews lists its subsets. Both reviews-v1 and reviews-v2 run. What do a request from jason and one without the header get?",
      answer:
        "jason gets 503; the request without the header gets 200 from reviews-v1. The DestinationRule defines only v1, so the route to v2 points at an upstream cluster that Istio never created: productpage's sidecar answers 503 itself (no cluster), although a v2 pod runs and nothing is wrong with the network. No packet leaves for reviews. The same 503 appears for a moment whenever a VirtualService that uses a subset reaches the sidecars before the DestinationRule that defines it, which is why Istio recommends adding subsets first and removing them last.",
      sources: [
        "https://istio.io/latest/docs/ops/best-practices/traffic-management/#avoid-503-errors-while-reconfiguring-service-routes (a route to a subset that is not defined refers to a non-existent upstream pool: 503)",
        "https://github.com/istio/api/blob/master/networking/v1alpha3/destination_rule.proto Subset (a subset is the Service's pods with its labels)",
        "https://github.com/istio/api/blob/master/networking/v1alpha3/virtual_service.proto Destination.subset (the subset must be defined in a DestinationRule)",
      ],
      checks: [
        {
          from: "pod:shop/productpage",
          to: "service:shop/reviews:9080",
          http: "GET /reviews/1",
          headers: ["end-user: jason"],
          verdict: "drop",
          httpStatus: 503,
          says: "no DestinationRule defines subset v2",
        },
        {
          from: "pod:shop/productpage",
          to: "service:shop/reviews:9080",
          http: "GET /reviews/1",
          verdict: "allow",
          httpStatus: 200,
          backends: { "shop/reviews:9080#v1": 1 },
        },
      ],
      edit: {
        description: "Add subset v2 (labels version: v2) to the DestinationRule.",
        lookFor: "jason's request reaches reviews-v2 (200); the others still go to v1.",
        change: {
          replace: {
            find: "    - name: v1\n      labels: { version: v1 }\n",
            with: "    - name: v1\n      labels: { version: v1 }\n    - name: v2\n      labels: { version: v2 }\n",
          },
        },
        checks: [
          {
            from: "pod:shop/productpage",
            to: "service:shop/reviews:9080",
            http: "GET /reviews/1",
            headers: ["end-user: jason"],
            verdict: "allow",
            httpStatus: 200,
            backends: { "shop/reviews:9080#v2": 1 },
          },
        ],
      },
    },
  ],
  [
    cniIgnores,
    {
      id: "39-catch-a-policy-the-cni-ignores",
      title: "Catch a policy the CNI ignores in the flow log",
      topics: ["ktl observe", "flow logs", "cluster profile", "NetworkPolicy"],
      goal: "Set what the cluster was seen doing beside what the manifests predict, and let the engine test why they differ: every NetworkPolicy is in place, and the network plugin enforces none of them.",
      question:
        "payments' api admits only web's frontend, and internal's default deny admits nobody. flows.csv, exported from the nodes, shows tools/debug reaching both api (8443) and ledger (5432). Run `ktl observe flows.csv .` in this folder: which rows disagree, and which one cause explains them all?",
      answer:
        "Two rows disagree: debug -> api on 8443 (predicted dropped by api-from-frontend) and debug -> ledger on 5432 (predicted dropped by default-deny-ingress) were both seen forwarded. ktl tests causes as what-ifs: taking api-from-frontend out explains only its own 3 forwards, taking default-deny-ingress out only its 2; running the same input under the flannel profile, which enforces no NetworkPolicy, explains all 5 and contradicts nothing, since no drop was seen anywhere. NetworkPolicy is an API that the network plugin implements: a plugin without policy support accepts the objects and ignores them, and nothing warns. A policy in the cluster that the input lacks could explain one row; only an observed drop would argue against the plugin that enforces nothing.",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/#prerequisites (a NetworkPolicy without a controller that implements it has no effect)",
        "https://github.com/flannel-io/flannel/blob/master/README.md (flannel provides the network, not NetworkPolicy)",
        "https://github.com/cilium/cilium/blob/main/api/v1/flow/flow.proto and https://docs.tigera.io flow log data types: the fields ktl observe reads",
      ],
      checks: [
        { from: "pod:tools/debug", to: "service:payments/api:443", verdict: "drop" },
        { from: "pod:tools/debug", to: "pod:internal/ledger-0:5432", verdict: "drop" },
        { from: "pod:tools/debug", to: "service:payments/api:443", cni: "flannel", verdict: "allow" },
        { from: "pod:tools/debug", to: "pod:internal/ledger-0:5432", cni: "flannel", verdict: "allow" },
      ],
      edit: {
        description:
          "Say which plugin the cluster runs: add flannel's kube-flannel-cfg ConfigMap (ktl reads the profile from it).",
        lookFor:
          "The manifests now predict what the flow log shows: debug reaches api and ledger, and `ktl observe` finds every row in agreement. The policies are still in the input; the trace says that nothing enforces them.",
        change: {
          replace: {
            find: "# Only web's frontend may call the payments API.\n",
            with: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-flannel-cfg\n  namespace: kube-flannel\ndata:\n  net-conf.json: \'{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}\'\n---\n# Only web\'s frontend may call the payments API.\n',
          },
        },
        checks: [
          { from: "pod:tools/debug", to: "service:payments/api:443", verdict: "allow" },
          { from: "pod:tools/debug", to: "pod:internal/ledger-0:5432", verdict: "allow" },
        ],
      },
    },
  ],
  [
    l4BesideL7,
    {
      id: "40-add-an-l4-rule-beside-a-cilium-l7-rule",
      title: "Add an L4 rule beside a Cilium L7 rule",
      topics: ["CiliumNetworkPolicy", "L7", "HTTP", "toPorts"],
      goal: "Predict what HTTP requests to a pod get when two CiliumNetworkPolicies allow the same port to it, one with HTTP rules and one without.",
      question:
        "api-read-only (the app team's) lets frontend reach api on 8080 with one HTTP rule, GET /api/.*. api-metrics (the observability team's) lets every pod of shop reach api on 8080, with no rules section. What do POST /api/orders from frontend and GET /api/orders from batch get?",
      answer:
        "Both get 200: api-read-only's HTTP rule no longer restricts anything. Cilium adds up the rules that select api; for each port and each peer, a rule that allows it at L4 without L7 rules allows every request of that peer, and the L7 rules of another rule for the same port and peer have no effect. fromEndpoints: [{}] in a namespaced policy selects every pod of shop, frontend included, so every request of frontend and batch is allowed. prometheus, for which api-metrics was written, gets 200 too. The HTTP rule still exists and nothing warns: the trace names the rule that allowed the request (api-metrics), which is the way to see it. Give the L4 rule a narrower peer (only the pods that need the port without L7 checks), or a different port for metrics, or add the metrics path to its own HTTP rules. This is Cilium's policy model; a Kubernetes NetworkPolicy has no L7 rules, but one that allows the same peer and port counts as an L4-only rule here too.",
      sources: [
        "https://docs.cilium.io/en/stable/security/policy/layer7/ (if a layer 4 rule is specified, and a similar layer 4 rule with layer 7 rules is also specified, the layer 7 portions of the latter rule have no effect)",
        "https://github.com/cilium/cilium/blob/main/Documentation/security/policy/layer7.rst (the same text in the repository)",
        "https://docs.cilium.io/en/stable/security/policy/language/ (an empty endpoint selector in a CiliumNetworkPolicy selects every endpoint of the policy's namespace)",
      ],
      checks: [
        {
          from: "pod:shop/frontend",
          to: "service:shop/api:80",
          http: "POST /api/orders",
          verdict: "allow",
          httpStatus: 200,
          says: "allowed by CiliumNetworkPolicy shop/api-metrics ingress rule 1",
        },
        {
          from: "pod:shop/batch",
          to: "service:shop/api:80",
          http: "GET /api/orders",
          verdict: "allow",
          httpStatus: 200,
        },
      ],
      edit: {
        description:
          "Give api-metrics a narrower peer: replace its fromEndpoints: [{}] by the pods labelled app: prometheus.",
        lookFor:
          "frontend's POST gets 403 again: for frontend, only api-read-only allows 8080, so its HTTP rule judges each request. batch is no longer allowed at all (no HTTP answer). prometheus still gets every path, /metrics included: for its peer, the L4 rule is the only one.",
        change: {
          replace: {
            find: "    - fromEndpoints:\n        - {}\n",
            with: "    - fromEndpoints:\n        - matchLabels:\n            app: prometheus\n",
          },
        },
        checks: [
          {
            from: "pod:shop/frontend",
            to: "service:shop/api:80",
            http: "POST /api/orders",
            verdict: "drop",
            httpStatus: 403,
          },
          {
            from: "pod:shop/frontend",
            to: "service:shop/api:80",
            http: "GET /api/orders",
            verdict: "allow",
            httpStatus: 200,
          },
          { from: "pod:shop/batch", to: "service:shop/api:80", http: "GET /api/orders", verdict: "drop" },
          {
            from: "pod:shop/prometheus",
            to: "service:shop/api:80",
            http: "GET /metrics",
            verdict: "allow",
            httpStatus: 200,
          },
        ],
      },
    },
  ],
  [
    adminPriority,
    {
      id: "41-order-admin-policies-by-priority",
      title: "Order two Admin tier policies by priority",
      topics: ["ClusterNetworkPolicy", "Admin tier", "priority"],
      goal: "Predict which of two Admin tier ClusterNetworkPolicies decides a connection that both match, from their priority numbers.",
      question:
        "guard-admin-ports (priority 10) has a Deny rule for TCP 9090 from every namespace into tenant namespaces; let-prometheus-scrape (priority 50) has an Accept rule for TCP 9090 from monitoring into the same namespaces. Can monitoring/prometheus reach shop/api on 9090? Can tools/debug? Can prometheus reach api on 8080?",
      answer:
        "prometheus cannot reach 9090, and neither can debug; prometheus reaches 8080. Within a tier, policies are checked in priority order, lower numbers first, and the first rule that matches decides: guard-admin-ports (10) comes before let-prometheus-scrape (50), its Deny matches prometheus, and an Admin tier Deny is final, so the Accept at 50 is never reached. A larger number is not a stronger policy; it is checked later. On 8080 no Admin rule matches, so the decision falls to NetworkPolicy (none selects api) and then the Baseline tier (empty): allowed. Give policies that may match the same connection distinct priorities: for two policies of one tier with the same priority, the API leaves the choice to the implementation (ktl takes input order and warns, KTL611). ClusterNetworkPolicy (v1alpha2) and AdminNetworkPolicy (v1alpha1, whose priority works the same way) are implemented by the network plugin; one that does not implement them ignores both.",
      sources: [
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/apis/v1alpha2/clusternetworkpolicy_types.go ClusterNetworkPolicySpec.Priority (lower values have higher precedence and are checked first within the tier; equal priorities that match one connection are left to the implementation)",
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/apis/v1alpha2/clusternetworkpolicy_types.go ClusterNetworkPolicySpec.Tier (an Admin tier Accept or Deny is final)",
        "https://github.com/kubernetes-sigs/network-policy-api/blob/main/apis/v1alpha1/adminnetworkpolicy_types.go AdminNetworkPolicySpec.Priority (the same order for AdminNetworkPolicy)",
      ],
      checks: [
        {
          from: "pod:monitoring/prometheus",
          to: "pod:shop/api:9090",
          verdict: "drop",
          says: "Admin tier: Deny by ClusterNetworkPolicy guard-admin-ports (priority 10)",
        },
        { from: "pod:tools/debug", to: "pod:shop/api:9090", verdict: "drop" },
        { from: "pod:monitoring/prometheus", to: "pod:shop/api:8080", verdict: "allow" },
      ],
      edit: {
        description: "Give let-prometheus-scrape priority 5, below guard-admin-ports' 10.",
        lookFor:
          "prometheus reaches 9090 now: let-prometheus-scrape is checked first and its Accept is final. debug is still denied: the Accept does not match it, so guard-admin-ports decides. The exception goes before the rule it makes an exception to.",
        change: { replace: { find: "  priority: 50\n", with: "  priority: 5\n" } },
        checks: [
          {
            from: "pod:monitoring/prometheus",
            to: "pod:shop/api:9090",
            verdict: "allow",
            says: "Admin tier: Accept by ClusterNetworkPolicy let-prometheus-scrape (priority 5)",
          },
          { from: "pod:tools/debug", to: "pod:shop/api:9090", verdict: "drop" },
        ],
      },
    },
  ],
  [
    outsideName,
    {
      id: "42-allow-an-outside-name-with-tofqdns",
      title: "Allow an outside name with toFQDNs",
      topics: ["CiliumNetworkPolicy", "toFQDNs", "DNS", "egress"],
      goal: "Predict whether a Cilium toFQDNs rule lets a pod reach the outside name it names, and what Cilium needs to learn that name's addresses.",
      question:
        "app-egress selects shop/app for egress and has one rule: toFQDNs matchName api.example.com, on TCP 443. Under Cilium, does app reach host:api.example.com:443? Can it ask kube-system/coredns for the name on UDP 53?",
      answer:
        'No to both. A toFQDNs rule does not hold addresses: Cilium fills it with the addresses that DNS answered for the matching names, and it sees those answers only through its DNS proxy. The proxy sees an endpoint\'s lookups only when an egress rule of that endpoint has an L7 DNS rule (toPorts on port 53 with rules.dns whose matchName or matchPattern covers the name), usually toward kube-dns. app-egress has none, so the toFQDNs rule never gets an address and matches nothing; and since the policy puts app in default deny for egress, the lookup to coredns on 53 has no rule either. Add an egress rule to kube-dns on port 53 with rules: dns: [{matchPattern: "*"}]: the lookup is allowed and seen, and connections to api.example.com on 443 match the toFQDNs rule. Other names (www.example.com) still match nothing, and neither does an address the pod dials without looking it up. ktl does not model DNS TTLs (tofqdns-min-ttl) or which DNS server the rule points at.',
      sources: [
        "https://docs.cilium.io/en/stable/security/policy/language/#dns-based (toFQDNs matchName and matchPattern; the IPs come from DNS lookups the DNS proxy intercepts)",
        "https://docs.cilium.io/en/stable/security/policy/language/#obtaining-dns-data-for-use-by-tofqdns (an L7 DNS rule toward the DNS server is needed for the proxy to see the lookups)",
        "https://github.com/cilium/cilium/blob/main/pkg/policy/api/fqdn.go FQDNSelector (matchName, matchPattern with * wildcards)",
      ],
      checks: [
        {
          from: "pod:shop/app",
          to: "host:api.example.com:443",
          cni: "cilium",
          verdict: "drop",
          says: "no egress rule of shop/app has an L7 DNS rule",
        },
        {
          from: "pod:shop/app",
          to: "pod:kube-system/coredns:53",
          protocol: "UDP",
          cni: "cilium",
          verdict: "drop",
        },
      ],
      edit: {
        description:
          'Add a second egress rule to app-egress: toEndpoints kube-system\'s k8s-app: kube-dns, on port 53 (protocol ANY), with rules: dns: [{matchPattern: "*"}].',
        lookFor:
          "The lookup to coredns is allowed, the DNS proxy sees it, and app reaches api.example.com on 443 through the toFQDNs rule. www.example.com is still not reached: no toFQDNs selector matches it.",
        change: {
          replace: {
            find: '            - port: "443"\n              protocol: TCP\n',
            with: '            - port: "443"\n              protocol: TCP\n    - toEndpoints:\n        - matchLabels:\n            k8s:io.kubernetes.pod.namespace: kube-system\n            k8s-app: kube-dns\n      toPorts:\n        - ports:\n            - port: "53"\n              protocol: ANY\n          rules:\n            dns:\n              - matchPattern: "*"\n',
          },
        },
        checks: [
          {
            from: "pod:shop/app",
            to: "host:api.example.com:443",
            cni: "cilium",
            verdict: "allow",
            says: "allowed by CiliumNetworkPolicy shop/app-egress egress rule 1",
          },
          {
            from: "pod:shop/app",
            to: "pod:kube-system/coredns:53",
            protocol: "UDP",
            cni: "cilium",
            verdict: "allow",
          },
          {
            from: "pod:shop/app",
            to: "host:www.example.com:443",
            cni: "cilium",
            verdict: "drop",
            says: "no toFQDNs selector matches www.example.com",
          },
        ],
      },
    },
  ],
  [
    affinityPerNode,
    {
      id: "43-follow-session-affinity-across-nodes",
      title: "Follow session affinity across nodes",
      topics: ["Service", "sessionAffinity", "NodePort", "kube-proxy"],
      goal: "Predict whether sessionAffinity: ClientIP sends one outside client to the same pod when its connections come in through different nodes.",
      question:
        "shop/web is a NodePort Service (30080) with sessionAffinity: ClientIP and three pods, two on node-a and one on node-b. The outside client 203.0.113.7 connects through node-a, then through node-b. Does the second connection reach the same pod as the first?",
      answer:
        "Not necessarily. Session affinity is kept by kube-proxy on the node that handles the connection: in iptables mode each node's rules remember which endpoint a client address was sent to (the recent match, per node), and no node knows what another chose. Through node-a the first connection picks one of the three pods at random and later ones through node-a stick to it for timeoutSeconds (10800 s by default); through node-b the client is a new client and picks again, one chance in three of the same pod. With externalTrafficPolicy: Cluster each node also masquerades, so the pods see the node's address rather than 203.0.113.7. To keep one client on one pod, keep it entering through one node (a load balancer with its own client affinity in front), or use externalTrafficPolicy: Local, which narrows each node to its own pods but still does not share affinity between nodes.",
      sources: [
        "https://kubernetes.io/docs/reference/networking/virtual-ips/#session-affinity (sessionAffinity: ClientIP passes connections from one client address to the same pod; timeoutSeconds)",
        "https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/iptables/proxier.go (the affinity rules use the recent match in each node's own tables)",
        "https://kubernetes.io/docs/reference/networking/virtual-ips/#external-traffic-policy (Local: only node-local endpoints, the client address kept)",
      ],
      checks: [
        {
          from: "external:203.0.113.7@node-a",
          to: "service:shop/web:80",
          verdict: "allow",
          count: 3,
          nodes: ["node-a", "node-b"],
          says: "through node-a's kube-proxy picks a candidate at random",
        },
        {
          from: "external:203.0.113.7@node-b",
          to: "service:shop/web:80",
          verdict: "allow",
          count: 3,
          nodes: ["node-a", "node-b"],
          says: "each node remembers its own clients",
        },
      ],
      edit: {
        description: "Set externalTrafficPolicy: Local on shop/web.",
        lookFor:
          "Through node-a the client picks between node-a's two pods, through node-b it always lands on node-b's pod, and the pods see 203.0.113.7. The two nodes still choose apart: the client reaches one pod through node-a and another through node-b.",
        change: {
          replace: {
            find: "  sessionAffinity: ClientIP\n",
            with: "  externalTrafficPolicy: Local\n  sessionAffinity: ClientIP\n",
          },
        },
        checks: [
          {
            from: "external:203.0.113.7@node-a",
            to: "service:shop/web:80",
            verdict: "allow",
            count: 2,
            nodes: ["node-a"],
            sourceIPPreserved: true,
          },
          {
            from: "external:203.0.113.7@node-b",
            to: "service:shop/web:80",
            verdict: "allow",
            count: 1,
            nodes: ["node-b"],
            sourceIPPreserved: true,
            says: "through node-b's kube-proxy",
          },
        ],
      },
    },
  ],
  [
    externalNameTls,
    {
      id: "44-call-an-externalname-service-over-tls",
      title: "Call an ExternalName Service over TLS",
      topics: ["Service", "ExternalName", "DNS", "TLS"],
      goal: "Predict where a call to an ExternalName Service goes, and which name the outside server sees in the Host header and the TLS SNI.",
      question:
        "shop/payments is an ExternalName Service for api.example.com, and shop/checkout calls https://payments on 443. Does the connection leave the cluster, and which name does the server at api.example.com see as the HTTP Host and the TLS server name?",
      answer:
        "The connection leaves the cluster for api.example.com, but the server sees payments (or payments.shop.svc.cluster.local, whatever the client wrote), not api.example.com. An ExternalName Service is only a DNS CNAME: cluster DNS answers the lookup of payments.shop.svc.cluster.local with api.example.com, and nothing proxies or rewrites the connection. The client still puts the name it dialled in the Host header and the TLS SNI, so the outside server may answer 404 for an unknown host or present a certificate for api.example.com that the client refuses as a name mismatch. Kubernetes' documentation warns about exactly this for HTTP and HTTPS. Call api.example.com by its own name when the server checks the name, or set the Host and server name the client sends. No policy is involved in the alias itself: an egress NetworkPolicy judges the connection to the outside address as for any other outside host.",
      sources: [
        "https://kubernetes.io/docs/concepts/services-networking/service/#externalname (a CNAME record, no proxying; the warning about HTTP Host headers and TLS certificates for the name the client used)",
        "https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services (the names Services get in cluster DNS)",
        "https://kubernetes.io/docs/concepts/services-networking/network-policies/ (egress rules judge addresses, not names)",
      ],
      checks: [
        {
          from: "pod:shop/checkout",
          to: "service:shop/payments:443",
          verdict: "allow",
          says: "The client still sends the name it looked up (payments.shop.svc.cluster.local, or as written) as the HTTP Host header and the TLS SNI",
        },
        { from: "pod:shop/checkout", to: "host:api.example.com:443", verdict: "allow" },
      ],
      edit: {
        description:
          "Add a NetworkPolicy checkout-egress that selects checkout for egress and allows only port 53 (UDP and TCP), for DNS.",
        lookFor:
          "The ExternalName call and a direct call to api.example.com now have the same answer: egress policy judges the outside address, and no rule allows TCP 443 to it. The alias grants nothing of its own; allowing it means an egress rule for the outside host's addresses (an ipBlock, or a CNI rule by name such as Cilium's toFQDNs).",
        change: {
          replace: {
            find: "    - port: 443\n",
            with: "    - port: 443\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: checkout-egress\n  namespace: shop\nspec:\n  podSelector:\n    matchLabels:\n      app: checkout\n  policyTypes:\n    - Egress\n  egress:\n    - ports:\n        - port: 53\n          protocol: UDP\n        - port: 53\n          protocol: TCP\n",
          },
        },
        checks: [
          {
            from: "pod:shop/checkout",
            to: "service:shop/payments:443",
            verdict: "drop",
            says: "isolated for egress by shop/checkout-egress",
          },
          { from: "pod:shop/checkout", to: "host:api.example.com:443", verdict: "drop" },
        ],
      },
    },
  ],
];

export const LESSONS: readonly Lesson[] = DATA.map(([manifests, d]) => ({
  ...d,
  number: Number(d.id.slice(0, 2)),
  file: "manifests.yaml",
  manifests,
}));

export function lessonById(id: string): Lesson | undefined {
  return LESSONS.find((l) => l.id === id);
}

/** A text replacement of a lesson's edit applied to `text`; an error when the text no longer has what it changes. Pure (the UI bundle imports it): what-if changes run through the engine (scenarios/lessonEdit.ts, the what-if worker). */
export function replaceInText(
  change: { find: string; with: string },
  text: string,
): { text: string; error?: string } {
  const at = text.indexOf(change.find);
  if (at < 0)
    return {
      text,
      error: "the manifests no longer contain the text this edit changes: reset the lesson first",
    };
  return { text: text.slice(0, at) + change.with + text.slice(at + change.find.length) };
}

function expectationsOf(l: Lesson): ScenarioExpectation[] {
  // Expectations are plain TCP connections under the generic profile: HTTP and profile checks stay in lessons.test.ts.
  return l.checks
    .filter(
      (c) => (c.protocol ?? "TCP") === "TCP" && !c.http && !c.cni && !/^(gateway|ingress|host):/.test(c.to),
    )
    .map((c) => ({ from: c.from, to: c.to, verdict: c.verdict }));
}

/** The lessons as catalogue entries (scenarios/index.ts). */
export const LESSON_SCENARIOS: readonly Scenario[] = LESSONS.map((l) => ({
  id: l.id,
  title: l.title,
  summary: l.goal,
  file: l.file,
  manifests: l.manifests,
  expect: expectationsOf(l),
}));
