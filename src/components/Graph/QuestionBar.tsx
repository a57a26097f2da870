/**
 * "Ask a question": a source (workload, pod, node, external client at a
 * node) and a destination (Service port, workload port, pod port); the
 * engine traces it (a workload: every pod of it), the graph lights the path
 * and the details panel explains each hop.
 */
import { useMemo, useState, type FormEvent } from "react";
import { useApp, useAppStore, useSettledResult } from "../../store/StoreProvider.tsx";
import { EXTERNAL_CLIENT_IP, externalAtNode } from "../../engine/analysis/constants.ts";
import type { Analysis, PodView, Protocol, ServiceView } from "../../engine/analysis/index.ts";

interface Choice {
  value: string;
  label: string;
  protocol?: Protocol;
  disabled?: boolean;
}

/**
 * Each pod's, Service's and workload's choices, kept by what they are made of: an edit's answer keeps the pods and
 * Services it did not change as the objects the page held (worker/delta.ts), so only the changed ones are worded
 * again (at 2,000 pods the bar built about 10,000 choices after every keystroke's draw: 3.4 MB an edit in
 * Chromium's allocation profile of the bench's edits).
 */
const podChoices = new WeakMap<PodView, { source: Choice; ports: Choice[] }>();
const serviceChoices = new WeakMap<ServiceView, { beyondPods: boolean; ports: Choice[] }>();
interface WorkloadChoices {
  label: string;
  pods: number;
  ports: PodView["ports"];
  beyondPods: boolean;
  source: Choice;
  destinations: Choice[];
}
let workloadChoices = new Map<string, WorkloadChoices>();

/** A port as the choices word it: " :8080 (http) TCP". */
const portWords = (p: { port: number; name?: string; protocol: Protocol }) =>
  ` :${p.port}${p.name ? ` (${p.name})` : ""} ${p.protocol}`;

function choicesOfPod(p: PodView): { source: Choice; ports: Choice[] } {
  let c = podChoices.get(p);
  if (!c) {
    c = {
      source: { value: p.id, label: `${p.namespace}/${p.name}` },
      ports: p.ports.map((cp) => ({
        value: `${p.id}:${cp.port}`,
        label: `${p.namespace}/${p.name}${portWords(cp)}`,
        protocol: cp.protocol,
      })),
    };
    podChoices.set(p, c);
  }
  return c;
}

function choicesOfService(s: ServiceView, beyondPods: boolean): Choice[] {
  let c = serviceChoices.get(s);
  if (!c || c.beyondPods !== beyondPods) {
    c = {
      beyondPods,
      ports: s.ports.map((p) => ({
        value: `${s.id}:${p.port}`,
        label: `${s.namespace}/${s.name}${portWords(p)}`,
        protocol: p.protocol,
        disabled: beyondPods,
      })),
    };
    serviceChoices.set(s, c);
  }
  return c.ports;
}

export function choices(a: Analysis | undefined): {
  sources: [string, Choice[]][];
  destinations: [string, Choice[]][];
} {
  if (!a) return { sources: [], destinations: [] };
  const beyondPods = !a.capabilities.serviceTraces;
  // Workloads (Deployment, StatefulSet, DaemonSet...): the engine traces every pod of one and says whether they differ.
  const workloads = new Map<string, { label: string; pods: number; ports: PodView["ports"] }>();
  for (const p of a.pods) {
    if (p.workload.kind === "Pod" || p.ips.length === 0) continue;
    const w = workloads.get(p.workload.id);
    if (w) w.pods++;
    else
      workloads.set(p.workload.id, {
        label: `${p.workload.kind} ${p.namespace}/${p.workload.name}`,
        pods: 1,
        ports: p.ports,
      });
  }
  const kept = workloadChoices;
  workloadChoices = new Map();
  const ofWorkload = [...workloads].map(([id, w]) => {
    let c = kept.get(id);
    if (
      !c ||
      c.label !== w.label ||
      c.pods !== w.pods ||
      c.ports !== w.ports ||
      c.beyondPods !== beyondPods
    ) {
      const count = `(${w.pods} pod${w.pods === 1 ? "" : "s"})`;
      c = {
        ...w,
        beyondPods,
        source: { value: id, label: `${w.label} ${count}`, disabled: beyondPods },
        destinations: w.ports.map((cp) => ({
          value: `${id}:${cp.port}`,
          label: `${w.label}${portWords(cp)} ${count}`,
          protocol: cp.protocol,
          disabled: beyondPods,
        })),
      };
    }
    workloadChoices.set(id, c);
    return c;
  });
  const running = a.pods.filter((p) => p.ips.length > 0).map(choicesOfPod);
  const sources: [string, Choice[]][] = [
    ["Workloads (every pod)", ofWorkload.map((c) => c.source)],
    ["Pods", running.map((c) => c.source)],
    ["Nodes (host network)", a.nodes.map((n) => ({ value: n.id, label: n.name, disabled: beyondPods }))],
    [
      "External client",
      a.nodes.map((n) => ({
        value: externalAtNode(EXTERNAL_CLIENT_IP, n.name),
        label: `${EXTERNAL_CLIENT_IP} arriving at ${n.name}`,
        disabled: beyondPods,
      })),
    ],
  ];
  const destinations: [string, Choice[]][] = [
    [
      "L7 routers (Gateway, Ingress)",
      a.routers.flatMap((r) =>
        r.kind === "VirtualService"
          ? []
          : r.ports.map((port) => ({
              value: `${r.kind.toLowerCase()}:${r.namespace}/${r.name}:${port}`,
              label: `${r.kind} ${r.namespace}/${r.name} :${port}`,
              protocol: "TCP" as Protocol,
              disabled: beyondPods,
            })),
      ),
    ],
    ["Service ports", a.services.flatMap((s) => choicesOfService(s, beyondPods))],
    ["Workload ports (every pod)", ofWorkload.flatMap((c) => c.destinations)],
    ["Pod ports", running.flatMap((c) => c.ports)],
  ];
  return {
    sources: sources.filter(([, l]) => l.length > 0),
    destinations: destinations.filter(([, l]) => l.length > 0),
  };
}

/** Why a destination takes an HTTP request (an L7 router, a Cilium L7 rule, a mesh route), from the engine's analysis; undefined when it does not. */
export function l7Reason(a: Analysis | undefined, to: string): string | undefined {
  if (/^(gateway|ingress|host):/.test(to))
    return "the destination is an L7 router: the request decides the route";
  const id = to.replace(/:\d+$/, "");
  return a?.l7Targets[id];
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** "Name: value; Other: v" -> lower-cased header names (Host is set apart); an error names the bad part. */
export function parseHeaders(text: string): Record<string, string> | { error: string } {
  const out: Record<string, string> = {};
  for (const part of text.split(/[;\n]/)) {
    const p = part.trim();
    if (!p) continue;
    const at = p.indexOf(":");
    const name = at > 0 ? p.slice(0, at).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return { error: `“${p}” is not a header (Name: value)` };
    out[name.toLowerCase()] = p.slice(at + 1).trim();
  }
  return out;
}

function Options({ groups }: { groups: [string, Choice[]][] }) {
  return (
    <>
      {groups.map(([label, list]) => (
        <optgroup key={label} label={label}>
          {list.map((c) => (
            <option key={c.value} value={c.value} disabled={c.disabled}>
              {c.label}
              {c.disabled ? " (needs the kube-proxy engine)" : ""}
            </option>
          ))}
        </optgroup>
      ))}
    </>
  );
}

/** Above this many choices a select is too heavy to rebuild on every edit: a text box with suggestions takes its place. */
const MAX_SELECT = 300;

function Picker({
  label,
  groups,
  value,
  onChange,
  empty,
}: {
  label: string;
  groups: [string, Choice[]][];
  value: string;
  onChange(v: string): void;
  empty: string;
}) {
  const all = useMemo(() => groups.flatMap(([, l]) => l), [groups]);
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const id = `pick-${label.toLowerCase()}`;
  // Large clusters: type part of a name (or the trace syntax itself); the first matches are suggested.
  // Suggested while the box is in use: with a value chosen, matching it read every choice after every answer.
  const [focused, setFocused] = useState(false);
  const needle = (draft ?? value).toLowerCase();
  const matches = useMemo(
    () => (all.length <= MAX_SELECT || !focused ? [] : firstMatches(all, needle)),
    [all, needle, focused],
  );
  if (all.length <= MAX_SELECT) {
    return (
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
        {value === "" ? <option value="">{empty}</option> : null}
        <Options groups={groups} />
      </select>
    );
  }
  const text = draft ?? value;
  return (
    <>
      <input
        type="text"
        aria-label={label}
        list={id}
        value={text}
        spellCheck={false}
        placeholder={label === "Source" ? "pod:NAMESPACE/NAME" : "service:NAMESPACE/NAME:PORT"}
        style={{ width: 210 }}
        onChange={(e) => {
          setDraft(e.target.value);
          if (all.some((c) => c.value === e.target.value)) onChange(e.target.value);
        }}
        onFocus={() => setFocused(true)}
        onBlur={() => {
          setFocused(false);
          if (draft !== undefined) onChange(draft);
          setDraft(undefined);
        }}
      />
      <datalist id={id}>
        {matches.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </datalist>
    </>
  );
}

export function QuestionBar() {
  const store = useAppStore();
  const result = useSettledResult();
  const question = useApp((s) => s.question);
  const { sources, destinations } = useMemo(() => choices(result), [result]);
  // A question restored from a link or a reload is the first draft.
  const [from, setFrom] = useState(question?.from ?? "");
  const [to, setTo] = useState(question?.to ?? "");
  const [protocol, setProtocol] = useState<Protocol>(question?.protocol ?? "TCP");
  const [method, setMethod] = useState(question?.http?.method ?? "GET");
  const [path, setPath] = useState(question?.http?.path ?? "/");
  const [host, setHost] = useState(question?.http?.headers.host ?? "");
  const headerText = (h: Record<string, string> | undefined) =>
    Object.entries(h ?? {})
      .filter(([k]) => k !== "host")
      .map(([k, v]) => `${k}: ${v}`)
      .join("; ");
  const [headers, setHeaders] = useState(headerText(question?.http?.headers));

  // Follow questions asked elsewhere (an edge, a matrix cell): adjust the draft while rendering (react.dev, "You might not need an effect").
  const [followed, setFollowed] = useState(question);
  if (question !== followed) {
    setFollowed(question);
    if (question) {
      setFrom(question.from);
      setTo(question.to);
      setProtocol(question.protocol);
      if (question.http) {
        setMethod(question.http.method);
        setPath(question.http.path);
        setHost(question.http.headers.host ?? "");
        setHeaders(headerText(question.http.headers));
      }
    }
  }

  const all = (g: [string, Choice[]][]) => g.flatMap(([, l]) => l);
  const fromValue = from || all(sources).find((c) => !c.disabled)?.value || "";
  const toValue = to || all(destinations).find((c) => !c.disabled)?.value || "";

  const onTo = (v: string) => {
    setTo(v);
    const p = all(destinations).find((c) => c.value === v)?.protocol;
    if (p) setProtocol(p);
  };
  const l7 = l7Reason(result, toValue);
  const parsedHeaders = parseHeaders(headers);
  const headerError = "error" in parsedHeaders ? String(parsedHeaders.error) : undefined;
  const pathError = path.startsWith("/") ? undefined : "the path starts with /";
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!fromValue || !toValue) return;
    if (l7 && protocol === "TCP") {
      if (headerError || pathError) return;
      const h: Record<string, string> = { ...(parsedHeaders as Record<string, string>) };
      if (host.trim()) h.host = host.trim();
      store.getState().ask({ from: fromValue, to: toValue, protocol, http: { method, path, headers: h } });
    } else store.getState().ask({ from: fromValue, to: toValue, protocol });
  };

  return (
    <form className="question" onSubmit={submit} aria-label="Ask a question">
      <span className="q-label">Ask a question</span>
      <label>
        <span className="visually-hidden">Source</span>
        <Picker label="Source" groups={sources} value={fromValue} onChange={setFrom} empty="no source" />
      </label>
      <span aria-hidden="true">→</span>
      <label>
        <span className="visually-hidden">Destination</span>
        <Picker
          label="Destination"
          groups={destinations}
          value={toValue}
          onChange={onTo}
          empty="no destination"
        />
      </label>
      <label>
        <span className="visually-hidden">Protocol</span>
        <select
          aria-label="Protocol"
          value={protocol}
          onChange={(e) => setProtocol(e.target.value as Protocol)}
        >
          <option>TCP</option>
          <option>UDP</option>
          <option>SCTP</option>
        </select>
      </label>
      {l7 && protocol === "TCP" ? (
        <span className="http-fields" data-testid="http-fields" title={`An HTTP request: ${l7}`}>
          <select aria-label="HTTP method" value={method} onChange={(e) => setMethod(e.target.value)}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <input
            type="text"
            aria-label="HTTP path"
            aria-invalid={pathError ? true : undefined}
            title={pathError ?? "Path and query, such as /api/v1?x=1"}
            value={path}
            spellCheck={false}
            style={{ width: 110 }}
            onChange={(e) => setPath(e.target.value)}
          />
          <input
            type="text"
            aria-label="Host header"
            placeholder="Host"
            value={host}
            spellCheck={false}
            style={{ width: 110 }}
            onChange={(e) => setHost(e.target.value)}
          />
          <input
            type="text"
            aria-label="HTTP headers"
            aria-invalid={headerError ? true : undefined}
            title={headerError ?? "Headers as Name: value; Other: value"}
            placeholder="Name: value; …"
            value={headers}
            spellCheck={false}
            style={{ width: 130 }}
            onChange={(e) => setHeaders(e.target.value)}
          />
        </span>
      ) : null}
      <button
        className="btn primary small"
        type="submit"
        disabled={!fromValue || !toValue || (!!l7 && protocol === "TCP" && !!(headerError || pathError))}
      >
        Trace
      </button>
      {question ? (
        <button className="btn small" type="button" onClick={() => store.getState().clearQuestion()}>
          Clear
        </button>
      ) : null}
    </form>
  );
}

/** The first 60 enabled choices whose value or label holds `needle` (lower case): a cluster has thousands. */
function firstMatches<T extends { disabled?: boolean; value: string; label: string }>(
  all: readonly T[],
  needle: string,
): T[] {
  const out: T[] = [];
  for (const c of all) {
    if (c.disabled || !(c.value.toLowerCase().includes(needle) || c.label.toLowerCase().includes(needle)))
      continue;
    out.push(c);
    if (out.length === 60) break;
  }
  return out;
}
