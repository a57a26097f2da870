/** What the selection means: an edge's flows and its trace, a pod, a Service, a node, or the question asked. */
import { useMemo } from "react";
import { useApp, useAppStore, useDrawnResult } from "../../store/StoreProvider.tsx";
import type { GraphEdge } from "../../graph/model.ts";
import { edgeText } from "../../graph/edgeLabels.ts";
import { useGraph } from "../Graph/useGraph.ts";
import { askEdge } from "../Graph/ask.ts";
import type { Analysis, Flow, PodView, RefView } from "../../engine/analysis/index.ts";
import { thousands } from "../../engine/trace/format.ts";
import { LineLink, RefLink } from "./RefLink.tsx";
import { TraceDetails, VerdictBadge } from "./TraceDetails.tsx";
import { Veil, useVerdictsHidden } from "../Lessons/Veil.tsx";
import { DropList } from "../Graph/DropList.tsx";
import { useObservedGraph } from "../Observe/useObserved.ts";
import { EdgeEditActions, ObservedRows } from "./EdgeObserved.tsx";

function useEdge(id: string): GraphEdge | undefined {
  const graph = useGraph();
  return useMemo(() => graph?.edges.find((e) => e.id === id), [graph, id]);
}

/** A drawn element that is not a single object of the input: a workload, a folded namespace or family, a client, a router, a zone. */
function ElementDetails({ id }: { id: string }) {
  const store = useAppStore();
  const graph = useGraph();
  const a = useDrawnResult();
  const node = graph?.nodes.find((n) => n.id === id);
  if (!graph || !node) return <p className="muted">This element is no longer in the graph.</p>;
  const heading =
    node.kind === "group"
      ? `${node.sublabel?.split(" · ")[0] ?? "Workload"} ${node.namespace ?? ""}/${node.label}`
      : node.id.startsWith("group:idle:")
        ? `Idle in namespace ${node.namespace ?? ""}`
        : node.kind === "namespace"
          ? node.nsCount
            ? `Namespaces ${node.label}`
            : `Namespace ${node.label}`
          : node.kind === "external"
            ? `Client outside the cluster ${node.label}`
            : node.kind === "router"
              ? `${node.sublabel?.split(" · ")[0] ?? "Router"} ${node.namespace ?? ""}/${node.label}`
              : `${node.kind === "zone" ? "Zone" : node.kind === "node" ? "Node" : ""} ${node.label}`.trim();
  const own = (e: GraphEdge) => e.source === id || e.target === id;
  const edges = graph.edges.filter(own);
  const name = (other: string) => graph.nodes.find((n) => n.id === other)?.label ?? other;
  const router = node.kind === "router" ? a?.routers.find((r) => r.id === id) : undefined;
  const children = graph.nodes.filter((n) => n.parent === id);
  return (
    <section aria-label="Element" data-testid="element-details">
      <h3>{heading}</h3>
      {node.sublabel ? <p className="muted">{node.sublabel}</p> : null}
      {node.ref ? (
        <p>
          Defined at <RefLink refView={node.ref} />
        </p>
      ) : null}
      {node.services?.length ? (
        <p>
          Its Service{node.services.length > 1 ? "s" : ""} (drawn inside it):{" "}
          {node.services.map((s, i) => {
            const sv = a?.services.find((x) => x.id === s);
            return (
              <span key={s}>
                {i ? ", " : ""}
                {sv ? <RefLink refView={sv.ref} /> : <span className="mono">{s}</span>}
              </span>
            );
          })}
        </p>
      ) : null}
      {node.refuses ? (
        <p>
          Its Services&apos; endpoints refuse some or all callers: {node.refuses.refuse} of {node.refuses.of}{" "}
          endpoint flows
          {node.refuses.refs.length ? (
            <>
              {" "}
              (
              {node.refuses.refs.map((r, i) => (
                <span key={i}>
                  {i ? ", " : ""}
                  <RefLink refView={r} />
                </span>
              ))}
              )
            </>
          ) : null}
          .
        </p>
      ) : null}
      {router?.traceTo ? (
        <button
          type="button"
          className="btn small"
          onClick={() =>
            store.getState().ask({ from: `external:203.0.113.10`, to: router.traceTo!, protocol: "TCP" })
          }
        >
          Ask a question through it
        </button>
      ) : null}
      {node.toggle ? (
        <button
          type="button"
          className="btn small"
          onClick={() => store.getState().setGraphOpen(node.toggle!, true)}
        >
          {node.id.startsWith("group:idle:")
            ? "Show them"
            : node.kind === "namespace"
              ? node.nsCount
                ? "Show its namespaces"
                : "Show its workloads"
              : "Show its pods"}
        </button>
      ) : null}
      {children.length ? (
        <>
          <h4>Inside</h4>
          <p className="mono">
            {children
              .slice(0, 30)
              .map((c) => c.label)
              .join(", ")}
            {children.length > 30 ? ` and ${children.length - 30} more` : ""}
          </p>
        </>
      ) : null}
      <h4>Edges</h4>
      {edges.length ? (
        <ul>
          {edges.slice(0, 30).map((e) => (
            <li key={e.id}>
              <VerdictBadge verdict={e.verdict} />{" "}
              {e.source === e.target
                ? "inside it"
                : e.source === id
                  ? `to ${name(e.target)}`
                  : `from ${name(e.source)}`}{" "}
              <span className="muted">{edgeText(e)}</span>{" "}
              <button type="button" className="link" onClick={() => askEdge(store, e)}>
                explain
              </button>
            </li>
          ))}
          {edges.length > 30 ? <li className="muted">and {edges.length - 30} more</li> : null}
        </ul>
      ) : (
        <p className="muted">None drawn (the filters above the graph may hide some).</p>
      )}
    </section>
  );
}

function EdgeDetails({ id }: { id: string }) {
  const store = useAppStore();
  const drawn = useEdge(id);
  const observed = useObservedGraph();
  const edge = drawn ?? observed?.extra.find((e) => e.id === id);
  const mark = observed?.marks.get(id);
  const question = useApp((s) => s.question);
  if (!edge) return <p className="muted">This edge is no longer in the graph.</p>;
  return (
    <section aria-label="Edge">
      <h3>
        <span className="mono">{edge.source}</span> → <span className="mono">{edge.target}</span>{" "}
        <VerdictBadge verdict={edge.verdict} />
      </h3>
      {edge.decidedBy.length ? (
        <p className="lead">
          Decided by{" "}
          {edge.decidedBy.map((r, i) => (
            <span key={i}>
              {i ? ", " : ""}
              <RefLink refView={r} />
            </span>
          ))}
        </p>
      ) : null}
      {edge.flows.length > 1 ? (
        <>
          <h4>Flows on this edge</h4>
          <ul>
            {edge.flows.map((f) => {
              const asked = question?.from === f.from && question.to === f.traceTo;
              return (
                <li key={f.flowId}>
                  <VerdictBadge verdict={f.verdict} /> <span className="mono">{f.from}</span> →{" "}
                  <span className="mono">{f.traceTo}</span> {f.protocol}{" "}
                  {asked ? (
                    <span className="muted">(explained below)</span>
                  ) : (
                    <button
                      type="button"
                      className="link"
                      onClick={() =>
                        store
                          .getState()
                          .ask({ from: f.from, to: f.traceTo, protocol: f.protocol }, { kind: "edge", id })
                      }
                    >
                      explain
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
          {edge.unlistedFlows ? (
            <p className="muted" data-testid="edge-unlisted">
              These are examples, the dropped and partly allowed first: the edge carries{" "}
              {thousands(edge.unlistedFlows)} more
              {edge.unlistedDrops
                ? `, ${thousands(edge.unlistedDrops)} of them dropped or partly allowed`
                : ""}
              . Open its boxes (+) to see them apart, or ask a question to trace any one.
            </p>
          ) : null}
        </>
      ) : null}
      {mark ? <ObservedRows mark={mark} /> : null}
      <EdgeEditActions key={id} edge={edge} mark={mark} />
    </section>
  );
}

function flowsOf(a: Analysis, id: string): { out: Flow[]; in: Flow[] } {
  return { out: a.flows.filter((f) => f.from.includes(id)), in: a.flows.filter((f) => f.to === id) };
}

function FlowList({ flows, from }: { flows: Flow[]; from: string | undefined }) {
  const store = useAppStore();
  if (!flows.length) return <p className="muted">None drawn.</p>;
  return (
    <ul>
      {flows.slice(0, 40).map((f) => {
        const src = from ?? f.from[0]!;
        return (
          <li key={f.id}>
            <VerdictBadge verdict={f.verdict} /> <span className="mono">{from ? f.traceTo : `${src}`}</span>{" "}
            <button
              type="button"
              className="link"
              onClick={() => store.getState().ask({ from: src, to: f.traceTo, protocol: f.protocol })}
            >
              explain
            </button>
          </li>
        );
      })}
      {flows.length > 40 ? <li className="muted">and {flows.length - 40} more</li> : null}
    </ul>
  );
}

function PodDetails({ pod, a }: { pod: PodView; a: Analysis }) {
  const { out, in: incoming } = flowsOf(a, pod.id);
  return (
    <section aria-label="Pod">
      <h3>
        Pod{" "}
        <span className="mono">
          {pod.namespace}/{pod.name}
        </span>
      </h3>
      <dl>
        <dt>Defined at</dt>
        <dd>
          <RefLink refView={pod.ref} />
          {pod.generated ? <span className="muted"> (made from the workload's template)</span> : null}
        </dd>
        <dt>Node</dt>
        <dd>{pod.node ? pod.node.slice(5) : "not scheduled"}</dd>
        <dt>IP</dt>
        <dd>
          {pod.ips.length ? (
            <span className="mono">{pod.ips.join(", ")}</span>
          ) : (
            <span data-testid="pod-no-ip">
              no IP yet
              {pod.node
                ? " (it has a status but no podIP: not started, so no Service lists it)"
                : " (not scheduled)"}
            </span>
          )}
          {pod.ipsSynthesized ? (
            <span className="muted"> (made up by ktl: the pod is written without status)</span>
          ) : null}
        </dd>
        <dt>State</dt>
        <dd>
          {pod.phase}
          {pod.ready ? ", ready" : ", not ready"}
          {pod.terminating ? ", terminating" : ""}
          {pod.hostNetwork ? ", host network (outside NetworkPolicy)" : ""}
        </dd>
        <dt>Labels</dt>
        <dd className="mono">
          {Object.entries(pod.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(", ") || "none"}
        </dd>
        <dt>Ports</dt>
        <dd className="mono">
          {pod.ports.map((p) => `${p.port}/${p.protocol}${p.name ? ` (${p.name})` : ""}`).join(", ") ||
            "none declared"}
        </dd>
        <dt>Ingress</dt>
        <dd>
          {pod.isolatedBy.ingress.length
            ? pod.isolatedBy.ingress.map((r, i) => (
                <span key={i}>
                  {i ? ", " : "isolated by "}
                  <RefLink refView={r} />
                </span>
              ))
            : "not isolated: no NetworkPolicy selects it for ingress"}
        </dd>
        <dt>Egress</dt>
        <dd>
          {pod.isolatedBy.egress.length
            ? pod.isolatedBy.egress.map((r, i) => (
                <span key={i}>
                  {i ? ", " : "isolated by "}
                  <RefLink refView={r} />
                </span>
              ))
            : "not isolated: no NetworkPolicy selects it for egress"}
        </dd>
      </dl>
      <h4>Outgoing flows</h4>
      <FlowList flows={out} from={pod.id} />
      <h4>Incoming flows</h4>
      <FlowList flows={incoming} from={undefined} />
    </section>
  );
}

function NodeDetails({
  name,
  zone,
  ip,
  refView,
  taints,
}: {
  name: string;
  zone: string | undefined;
  ip: string;
  refView: RefView | undefined;
  taints: string[] | undefined;
}) {
  const store = useAppStore();
  return (
    <section aria-label="Node">
      <h3>
        Node <span className="mono">{name}</span>
      </h3>
      <dl>
        <dt>Defined at</dt>
        <dd>
          {refView ? (
            <RefLink refView={refView} />
          ) : (
            <span className="muted">not in the input (assumed)</span>
          )}
        </dd>
        <dt>Zone</dt>
        <dd>{zone ?? "no zone label"}</dd>
        <dt>Internal IP</dt>
        <dd className="mono">{ip || "—"}</dd>
        <dt>Taints</dt>
        <dd className="mono" data-testid="node-taints">
          {taints?.length ? taints.join(", ") : <span className="muted">none</span>}
        </dd>
      </dl>
      <button
        type="button"
        className="btn small"
        onClick={() => {
          store.getState().setRulesNode(name);
          store.getState().setTab("rules");
        }}
      >
        Show its kube-proxy rules
      </button>
    </section>
  );
}

function Intro({ a, counts = true }: { a: Analysis | undefined; counts?: boolean }) {
  return (
    <section aria-label="Getting started">
      <h3>Where does this request go, and why is it dropped?</h3>
      <p>
        Click an edge or a pod in the graph, or ask a question above it: the path lights up and each decision
        is explained here, with links to the YAML lines that made it. Edit the manifests on the left and the
        graph follows.
      </p>
      <p className="muted">
        Runs in your browser: nothing leaves it. The engine works in this tab, your text is saved only here,
        and a share link carries the scenario inside the link itself.
      </p>
      {a ? (
        <p className="muted">
          {a.stats.pods} pods, {a.stats.services} Services, {a.stats.policies} NetworkPolicies,{" "}
          {a.nodes.length} nodes
          {a.zones.length ? ` in ${a.zones.length} zones` : ""}. {counts ? <FlowCounts a={a} /> : null}
        </p>
      ) : null}
      {a?.truncated ? <p className="muted">{a.truncated}</p> : null}
      {counts ? <DropList /> : null}
    </section>
  );
}

/**
 * What the drawn edges add up to. At scale the graph draws who can connect, workload to Service
 * (`reach`: allowed or partly allowed pairs as flows, the pairs no endpoint admits as compact drops),
 * beside the Service-to-pod flows, whose "partial" means some clients are refused.
 */
const notAllowed = (fs: readonly { verdict: string }[]) => {
  let n = 0;
  for (const f of fs) if (f.verdict !== "allow") n++;
  return n;
};

export function FlowCounts({ a }: { a: Analysis }) {
  // Counted once per answer: at scale the lists hold tens of thousands of flows, and this panel redraws often.
  const refused = useMemo(() => notAllowed(a.flows), [a.flows]);
  // The listed flows, and the partly admitted pairs past the engine's listing limit (compact records).
  const refusedReach = useMemo(
    () =>
      a.reach
        ? notAllowed(a.reach.flows) +
          (a.reach.allowed ?? []).reduce((n, d) => n + (d.verdict === "partial" ? d.count : 0), 0)
        : 0,
    [a.reach],
  );
  if (!a.reach)
    return (
      <>
        {refused} of {a.flows.length} drawn flows are dropped or partial.
      </>
    );
  const { flows, dropped, omitted } = a.reach;
  return (
    <>
      Workload to Service: {flows.length + omitted} connections are allowed ({refusedReach} of them by only
      some of the Service&apos;s pods); {thousands(dropped)} are dropped (drawn as drop edges; Only drops
      shows them alone). Service to pod: {refused} of {a.flows.length} flows refuse some or all of their
      clients.
    </>
  );
}

export function DetailsPanel() {
  const selection = useApp((s) => s.selection);
  const a = useDrawnResult();
  // Before a lesson's reveal: no counts of drops, no edge, pod or trace details (each states verdicts).
  const verdictsHidden = useVerdictsHidden();
  if (verdictsHidden)
    return (
      <div className="details" data-testid="details">
        <Intro a={a} counts={false} />
        <Veil what="A trace, or the details of an edge, a pod or a Service," />
      </div>
    );
  let body: React.ReactNode = <Intro a={a} />;
  if (selection && a) {
    switch (selection.kind) {
      case "edge":
        body = <EdgeDetails id={selection.id} />;
        break;
      case "pod": {
        const pod = a.pods.find((p) => p.id === selection.id);
        body = pod ? <PodDetails pod={pod} a={a} /> : <Intro a={a} />;
        break;
      }
      case "service": {
        const s = a.services.find((x) => x.id === selection.id);
        body = s ? (
          <section aria-label="Service">
            <h3>
              Service{" "}
              <span className="mono">
                {s.namespace}/{s.name}
              </span>{" "}
              <span className="muted">{s.type}</span>
            </h3>
            <dl>
              <dt>Defined at</dt>
              <dd>
                <RefLink refView={s.ref} />
              </dd>
              <dt>Cluster IPs</dt>
              <dd className="mono">{s.clusterIPs.join(", ") || (s.headless ? "None (headless)" : "—")}</dd>
              <dt>Ports</dt>
              <dd className="mono">
                {s.ports
                  .map(
                    (p) =>
                      `${p.port}/${p.protocol} → ${p.targetPort}${p.nodePort ? ` (node port ${p.nodePort})` : ""}`,
                  )
                  .join(", ")}
              </dd>
              <dt>Traffic policy</dt>
              <dd>
                internal: {s.internalTrafficPolicy}
                {s.external ? `, external: ${s.externalTrafficPolicy}` : ""}
              </dd>
            </dl>
            <h4>Clients</h4>
            <FlowList flows={flowsOf(a, s.id).in} from={undefined} />
          </section>
        ) : (
          <Intro a={a} />
        );
        break;
      }
      case "group":
      case "router":
      case "container":
        body = <ElementDetails id={selection.id} />;
        break;
      case "node": {
        const n = a.nodes.find((x) => x.id === selection.id);
        body = n ? (
          <NodeDetails name={n.name} zone={n.zone} ip={n.internalIP} refView={n.ref} taints={n.taints} />
        ) : (
          <Intro a={a} />
        );
        break;
      }
      case "external":
        body = <ElementDetails id={selection.id} />;
        break;
      case "question":
        body = null;
        break;
    }
  }
  return (
    <div className="details" data-testid="details">
      {body}
      <TraceDetails />
      {a && a.diagnostics.some((d) => d.severity === "error") && !selection ? (
        <p className="muted">
          Some documents have errors: see{" "}
          <LineLink line={a.diagnostics.find((d) => d.severity === "error")!.line}>the first one</LineLink> or
          the Problems tab.
        </p>
      ) : null}
    </div>
  );
}
