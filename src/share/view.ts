/**
 * The view a share link (format 2 on) and the saved work carry besides the
 * text: the question, the filters, the open tabs, the matrix port and the
 * lesson's step. Never the theme (a link opens in the recipient's theme).
 *
 * Every field is optional and checked one by one: a field this version does
 * not understand is left out, so a link never fails to open because of its
 * view; the text is what matters.
 */
import { LAYER_FILTERS } from "../graph/verdicts.ts";
import type {
  Filters,
  GraphLens,
  Grouping,
  MainTab,
  Selection,
  SharedView,
  SideTab,
} from "../store/types.ts";
import type { NsGroupBy } from "../graph/nsGroups.ts";

export type { SharedView };
import type { MatrixQuery, TraceQuery } from "../engine/analysis/types.ts";
import { CNI_NAMES, type ClusterAssumptions, type CniName } from "../engine/cni/profile.ts";

const PROTOCOLS = new Set(["TCP", "UDP", "SCTP"]);
const TABS = new Set<MainTab>(["graph", "matrix", "rules"]);
const SIDES = new Set<SideTab>(["details", "problems"]);
const MAX_ID = 600;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const shortString = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ID;

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const HEADER = /^[!#$%&'*+.^_`|~0-9a-z-]{1,100}$/;

/** An HTTP request of a question (format 3 on): method, path and at most 20 headers; anything else leaves it out. */
function http(v: unknown): TraceQuery["http"] {
  if (!isRecord(v) || typeof v.method !== "string" || !METHOD.test(v.method)) return undefined;
  if (typeof v.path !== "string" || v.path.length > MAX_ID || !(v.path.startsWith("/") || v.path === "*"))
    return undefined;
  const headers: Record<string, string> = {};
  if (isRecord(v.headers))
    for (const [k, x] of Object.entries(v.headers).slice(0, 20))
      if (HEADER.test(k) && typeof x === "string" && x.length <= MAX_ID) headers[k] = x;
  return { method: v.method, path: v.path, headers };
}

function question(v: unknown): TraceQuery | undefined {
  if (
    !isRecord(v) ||
    !shortString(v.from) ||
    !shortString(v.to) ||
    typeof v.protocol !== "string" ||
    !PROTOCOLS.has(v.protocol)
  )
    return undefined;
  const q: TraceQuery = { from: v.from, to: v.to, protocol: v.protocol as TraceQuery["protocol"] };
  const h = http(v.http);
  if (h) q.http = h;
  return q;
}

function filters(v: unknown): Filters | undefined {
  if (!isRecord(v)) return undefined;
  const hidden = Array.isArray(v.hiddenNamespaces)
    ? v.hiddenNamespaces.filter(shortString).slice(0, 1000)
    : [];
  const port = typeof v.port === "string" && /^(all|\d{1,5}\/(TCP|UDP|SCTP))$/.test(v.port) ? v.port : "all";
  const out: Filters = {
    hiddenNamespaces: [...new Set(hidden)].sort(),
    port,
    onlyDrops: v.onlyDrops === true,
  };
  const layer = LAYER_FILTERS.find((l) => l.id === v.layer && l.id !== "all");
  if (layer) out.layer = layer.id;
  return out;
}

function matrix(v: unknown): MatrixQuery | undefined {
  if (!isRecord(v)) return undefined;
  const port = v.port;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  if (typeof v.protocol !== "string" || !PROTOCOLS.has(v.protocol)) return undefined;
  return {
    port,
    protocol: v.protocol as MatrixQuery["protocol"],
    by: v.by === "workload" ? "workload" : "pod",
  };
}

function lesson(v: unknown): SharedView["lesson"] {
  if (!isRecord(v)) return undefined;
  const step =
    typeof v.step === "number" && Number.isInteger(v.step) && v.step >= -1 && v.step < 10_000 ? v.step : -1;
  return { revealed: v.revealed === true, presenting: v.presenting === true, step };
}

const NAMESPACE = /^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/;

/** The profile's assumptions (format 4): an ingress gateway, injection in namespaces (names or *); anything else is left out. */
function assumptions(v: unknown): ClusterAssumptions | undefined {
  if (!isRecord(v)) return undefined;
  const out: ClusterAssumptions = {};
  if (v.istioIngress === true) out.istioIngress = true;
  if (Array.isArray(v.injection)) {
    const ns = v.injection.filter(
      (x): x is string => typeof x === "string" && x.length <= 63 && NAMESPACE.test(x),
    );
    if (ns.length) out.injection = [...new Set(ns)].slice(0, 100);
  }
  return out.istioIngress || out.injection ? out : undefined;
}

const GROUPINGS = new Set<Grouping>(["auto", "pod", "workload", "namespace"]);
const LENSES = new Set<GraphLens>(["auto", "paths", "topology"]);
const SELECTABLE = new Set(["edge", "pod", "service", "node", "group", "external", "router", "container"]);
const OPEN_KEY = /^(ns|nsg|idle|workload):[^\s]{1,300}$/;

/** The graph as drawn: grouping, lens, the user's opened and folded boxes (at most 500), families, selection. */
function graph(v: unknown): SharedView["graph"] {
  if (!isRecord(v)) return undefined;
  const out: NonNullable<SharedView["graph"]> = {};
  if (typeof v.grouping === "string" && GROUPINGS.has(v.grouping as Grouping))
    out.grouping = v.grouping as Grouping;
  if (typeof v.lens === "string" && LENSES.has(v.lens as GraphLens)) out.lens = v.lens as GraphLens;
  if (isRecord(v.open)) {
    const open: Record<string, boolean> = {};
    for (const [k, x] of Object.entries(v.open).slice(0, 500))
      if (OPEN_KEY.test(k) && typeof x === "boolean") open[k] = x;
    if (Object.keys(open).length) out.open = open;
  }
  if (
    typeof v.nsGroupBy === "string" &&
    (v.nsGroupBy === "auto" || v.nsGroupBy === "prefix" || /^label:[^\s]{1,253}$/.test(v.nsGroupBy))
  )
    out.nsGroupBy = v.nsGroupBy as NsGroupBy;
  const sel = v.selection;
  if (isRecord(sel) && typeof sel.kind === "string" && SELECTABLE.has(sel.kind) && shortString(sel.id))
    out.selection = { kind: sel.kind, id: sel.id } as Selection;
  return Object.keys(out).length ? out : undefined;
}

/** The view fields of `v` that this version understands; the rest is left out. */
export function sanitizeView(v: unknown): SharedView | undefined {
  if (!isRecord(v)) return undefined;
  const out: SharedView = {};
  const q = question(v.question);
  if (q) out.question = q;
  const f = filters(v.filters);
  if (f) out.filters = f;
  if (typeof v.tab === "string" && TABS.has(v.tab as MainTab)) out.tab = v.tab as MainTab;
  if (typeof v.side === "string" && SIDES.has(v.side as SideTab)) out.side = v.side as SideTab;
  const m = matrix(v.matrix);
  if (m) out.matrix = m;
  const l = lesson(v.lesson);
  if (l) out.lesson = l;
  if (typeof v.cni === "string" && (CNI_NAMES as readonly string[]).includes(v.cni))
    out.cni = v.cni as CniName;
  const a = assumptions(v.assume);
  if (a) out.assume = a;
  const g = graph(v.graph);
  if (g) out.graph = g;
  return Object.keys(out).length ? out : undefined;
}

/** The parts of the app's state that a link or the saved work carry. */
export interface ViewSource {
  question: TraceQuery | undefined;
  filters: Filters;
  tab: MainTab;
  side: SideTab;
  matrixQuery: MatrixQuery;
  matrixChosen: boolean;
  answerShown: boolean;
  presenting: boolean;
  presenterStep: number;
  cni: CniName | undefined;
  assume: ClusterAssumptions | undefined;
  grouping: Grouping;
  graphLens: GraphLens;
  graphOpen: Record<string, boolean>;
  nsGroupBy: NsGroupBy;
  selection: Selection | undefined;
}

export function viewOf(s: ViewSource): SharedView {
  const v: SharedView = {
    filters: { ...s.filters, hiddenNamespaces: [...s.filters.hiddenNamespaces] },
    tab: s.tab,
    side: s.side,
  };
  if (s.question) {
    const q: TraceQuery = { from: s.question.from, to: s.question.to, protocol: s.question.protocol };
    if (s.question.http) q.http = { ...s.question.http, headers: { ...s.question.http.headers } };
    v.question = q;
  }
  if (s.cni) v.cni = s.cni;
  if (s.assume)
    v.assume = { ...s.assume, ...(s.assume.injection ? { injection: [...s.assume.injection] } : {}) };
  if (s.matrixChosen) v.matrix = { ...s.matrixQuery };
  if (s.answerShown || s.presenting || s.presenterStep !== -1)
    v.lesson = { revealed: s.answerShown, presenting: s.presenting, step: s.presenterStep };
  // The graph as drawn, where it is not the default: what the recipient sees is what the sender saw.
  const g: NonNullable<SharedView["graph"]> = {};
  if (s.grouping !== "auto") g.grouping = s.grouping;
  if (s.graphLens !== "auto") g.lens = s.graphLens;
  if (Object.keys(s.graphOpen).length) g.open = { ...s.graphOpen };
  if (s.nsGroupBy !== "auto") g.nsGroupBy = s.nsGroupBy;
  if (s.selection && s.selection.kind !== "question") g.selection = { ...s.selection };
  if (Object.keys(g).length) v.graph = g;
  return v;
}
