/**
 * Presenter mode steps through one trace hop by hop. Each step names the
 * graph elements it is about (`pod:NS/NAME`, `service:NS/NAME`, `node:NAME`,
 * `external:IP`, the playground's test-hook ids), so the graph can highlight
 * them while the hop's explanation is shown large.
 */
import { stepTitle, type HopStep, type HopVerdict } from "../../engine/analysis/index.ts";
import { graphEndpointId, parseExternalAtNode } from "../../engine/analysis/constants.ts";

export interface HopLike {
  step: HopStep;
  verdict: HopVerdict;
  detail: string;
  ref?: { kind: string; namespace?: string; name: string; line: number };
  /** The candidates the hop is about ("ip:port"), when not all of them. */
  endpoints?: readonly string[];
}

export interface PresentedTrace {
  verdict: string;
  reason: string;
  hops: readonly HopLike[];
  endpoints: readonly { ip: string; port: number; pod?: string; node?: string }[];
  /** The node whose kube-proxy handles the packet (engine trace), when known. */
  handledBy?: string | null;
  error?: string;
}

export interface PresenterStep {
  /** 1-based, as shown ("hop 3 of 7"). */
  number: number;
  title: string;
  detail: string;
  verdict: "pass" | "drop" | "info";
  /** Graph element ids to highlight. */
  focus: string[];
  /** Where in the input the hop's decision is written. */
  ref?: HopLike["ref"];
}

/** The graph id of a `ktl trace` source or destination. */
export function graphIdOf(endpoint: string): string {
  if (endpoint.startsWith("external:")) return graphEndpointId(endpoint);
  if (endpoint.startsWith("service:") || endpoint.startsWith("pod:")) {
    const i = endpoint.lastIndexOf(":");
    return i > endpoint.indexOf(":") ? endpoint.slice(0, i) : endpoint;
  }
  return endpoint;
}

function refId(ref: HopLike["ref"]): string | undefined {
  if (!ref) return undefined;
  const key = ref.namespace !== undefined ? `${ref.namespace}/${ref.name}` : ref.name;
  if (ref.kind === "Pod") return `pod:${key}`;
  if (ref.kind === "Service") return `service:${key}`;
  if (ref.kind === "Node") return `node:${key}`;
  return undefined;
}

const uniq = (ids: (string | undefined | null)[]): string[] => [
  ...new Set(ids.filter((x): x is string => !!x)),
];

/** `sourceNode`: the node a pod source runs on (the graph knows it; the trace's path does not). */
export function presenterSteps(
  q: { from: string; to: string },
  t: PresentedTrace,
  sourceNode?: string,
): PresenterStep[] {
  const source = graphIdOf(q.from);
  const destination = graphIdOf(q.to);
  const arrival = q.from.startsWith("external:")
    ? `node:${parseExternalAtNode(q.from)?.node ?? ""}`
    : q.from.startsWith("node:")
      ? q.from
      : sourceNode
        ? `node:${sourceNode}`
        : undefined;
  const handling = t.handledBy ? `node:${t.handledBy}` : arrival;
  const backendsOf = (h: HopLike) => {
    const chosen = h.endpoints
      ? t.endpoints.filter((e) =>
          h.endpoints!.some((x) => x === `${e.ip}:${e.port}` || x === `[${e.ip}]:${e.port}`),
        )
      : t.endpoints;
    return chosen.map((e) => (e.pod ? `pod:${e.pod}` : undefined));
  };
  return t.hops.map((h, i) => {
    let focus: (string | undefined | null)[];
    switch (h.step) {
      case "source":
        focus = [source, arrival];
        break;
      case "destination":
      case "dns":
        focus = [destination, refId(h.ref)];
        break;
      case "load balancer":
      case "load balancer health check":
      case "loadBalancerSourceRanges":
        focus = [source, arrival, destination];
        break;
      case "kube-proxy":
        focus = [destination, handling, ...backendsOf(h)];
        break;
      case "session affinity":
        focus = [source, destination];
        break;
      case "source address":
        focus = [source, handling, ...backendsOf(h)];
        break;
      case "admin tier at source":
      case "egress policy at source":
      case "baseline tier at source":
        focus = [source];
        break;
      case "admin tier at backend":
      case "ingress policy at backend":
      case "baseline tier at backend":
      case "proxy to backend":
      case "server sidecar":
        focus = backendsOf(h);
        break;
      case "router":
      case "listener":
      case "route":
      case "filter":
      case "outbound traffic policy":
        focus = [destination, refId(h.ref)];
        break;
      case "backend":
        focus = [refId(h.ref), ...backendsOf(h)];
        break;
    }
    const step: PresenterStep = {
      number: i + 1,
      title: stepTitle(h.step),
      detail: h.detail,
      verdict: h.verdict,
      focus: uniq(focus),
    };
    if (h.ref) step.ref = h.ref;
    return step;
  });
}

/** Keyboard for presenter mode: next and previous hop, first and last, and reset between questions. */
export function presenterKey(
  key: string,
  current: number,
  count: number,
): number | "reset" | "exit" | undefined {
  switch (key) {
    case "ArrowRight":
    case "ArrowDown":
    case " ":
    case "PageDown":
    case "j":
      return Math.min(count - 1, current + 1);
    case "ArrowLeft":
    case "ArrowUp":
    case "PageUp":
    case "k":
      return Math.max(-1, current - 1);
    case "Home":
      return -1;
    case "End":
      return count - 1;
    case "r":
    case "R":
      return "reset";
    case "Escape":
      return "exit";
    default:
      return undefined;
  }
}
