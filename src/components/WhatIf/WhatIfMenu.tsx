/**
 * What-if controls: one operator action at a time, written into the editor
 * as an undoable edit; the graph and the matrix then show what changed.
 */
import { useRef, useCallback, useMemo, useState, type FormEvent } from "react";
import { useDismiss } from "../Lessons/useDismiss.ts";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { nearMissEditText, type Analysis } from "../../engine/analysis/index.ts";
import type { WhatIf, WhatIfKind } from "../../engine/index.ts";
import { runWhatIf } from "./run.ts";
import { whatIfClient } from "./client.ts";

/** The actions this menu offers; a near miss's label or field edit is offered by its answer (Inspector/TraceDetails). */
type MenuKind = Exclude<WhatIfKind, "label" | "field">;

const ACTIONS: { kind: MenuKind; label: string }[] = [
  { kind: "scale", label: "Scale a workload" },
  { kind: "cordon", label: "Cordon a node" },
  { kind: "drain", label: "Drain a node" },
  { kind: "notReady", label: "Make a pod not ready" },
  { kind: "terminating", label: "Make a pod terminating" },
  { kind: "deletePod", label: "Delete a pod" },
  { kind: "policyOff", label: "Switch a NetworkPolicy off" },
  { kind: "trafficPolicy", label: "Change a Service's traffic policy" },
];

const SCALABLE = new Set(["Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"]);

interface Target {
  value: string;
  label: string;
  replicas?: number;
  external?: boolean;
  itp?: string;
  etp?: string;
}

function targetsFor(kind: MenuKind, a: Analysis | undefined): Target[] {
  if (!a) return [];
  switch (kind) {
    case "scale": {
      const counts = new Map<string, Target>();
      for (const p of a.pods) {
        if (!SCALABLE.has(p.workload.kind)) continue;
        const value = `${p.namespace}/${p.workload.kind}/${p.workload.name}`;
        const t = counts.get(value);
        if (t) t.replicas = (t.replicas ?? 0) + 1;
        else
          counts.set(value, {
            value,
            label: `${p.workload.kind} ${p.namespace}/${p.workload.name}`,
            replicas: 1,
          });
      }
      return [...counts.values()];
    }
    case "cordon":
    case "drain":
      return a.nodes
        .filter((n) => !n.synthesized || a.nodes.every((x) => x.synthesized))
        .map((n) => ({ value: n.name, label: `${n.name}${n.unschedulable ? " (cordoned)" : ""}` }));
    case "notReady":
    case "terminating":
    case "deletePod":
      return a.pods.map((p) => ({
        value: `${p.namespace}/${p.name}`,
        label: `${p.namespace}/${p.name}${p.node ? ` on ${p.node.replace(/^node:/, "")}` : ""}${!p.ready ? " (not ready)" : ""}${p.terminating ? " (terminating)" : ""}`,
      }));
    case "policyOff":
      return a.policies.map((p) => ({
        value: `${p.namespace}/${p.name}`,
        label: `${p.namespace}/${p.name}`,
      }));
    case "trafficPolicy":
      return a.services
        .filter((s) => s.type !== "ExternalName" && !s.headless)
        .map((s) => ({
          value: `${s.namespace}/${s.name}`,
          label: `${s.namespace}/${s.name}`,
          external: s.external,
          itp: s.internalTrafficPolicy,
          etp: s.externalTrafficPolicy,
        }));
  }
}

function describe(op: WhatIf): string {
  switch (op.kind) {
    case "scale":
      return `scale ${op.workload} to ${op.replicas}`;
    case "cordon":
      return `cordon ${op.node}`;
    case "drain":
      return `drain ${op.node}`;
    case "notReady":
      return `make ${op.pod} not ready`;
    case "terminating":
      return `make ${op.pod} terminating`;
    case "deletePod":
      return `delete ${op.pod}`;
    case "policyOff":
      return `switch off ${op.policy}`;
    case "trafficPolicy":
      return `set ${op.field} of ${op.service} to ${op.value}`;
    case "label":
    case "field":
      return nearMissEditText(op);
  }
}

/** The what-if the menu's choices make: an action on its target (replicas, or the traffic policy field to turn). */
function whatIfOf(
  kind: MenuKind,
  chosen: Target | undefined,
  count: number,
  policyField: "internalTrafficPolicy" | "externalTrafficPolicy",
): WhatIf | undefined {
  if (!chosen) return undefined;
  switch (kind) {
    case "scale":
      return { kind, workload: chosen.value, replicas: count };
    case "cordon":
    case "drain":
      return { kind, node: chosen.value };
    case "notReady":
    case "terminating":
    case "deletePod":
      return { kind, pod: chosen.value };
    case "policyOff":
      return { kind, policy: chosen.value };
    case "trafficPolicy":
      return {
        kind,
        service: chosen.value,
        field: policyField,
        value:
          (policyField === "internalTrafficPolicy" ? chosen.itp : chosen.etp) === "Local"
            ? "Cluster"
            : "Local",
      };
  }
}

export function WhatIfMenu() {
  const store = useAppStore();
  const analysis = useApp((s) => s.analysis.result);
  const running = useApp((s) => s.whatIf.status === "running");
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useDismiss(
    open,
    useCallback(() => setOpen(false), []),
    box,
  );
  const [kind, setKind] = useState<MenuKind>("scale");
  const [target, setTarget] = useState("");
  const [replicas, setReplicas] = useState<number | undefined>(undefined);
  const [field, setField] = useState<"internalTrafficPolicy" | "externalTrafficPolicy">(
    "internalTrafficPolicy",
  );
  // Read only while the menu is open: every pod or workload of a large answer, after each keystroke, for a
  // closed menu was 9 ms of the page's render of the answer at 10,000 pods (Chromium profile).
  const targets = useMemo(() => (open ? targetsFor(kind, analysis) : []), [open, kind, analysis]);
  const chosen = targets.find((t) => t.value === target) ?? targets[0];
  const count = replicas ?? (chosen?.replicas !== undefined ? Math.max(0, chosen.replicas + 1) : 1);
  const current = chosen ? (field === "internalTrafficPolicy" ? chosen.itp : chosen.etp) : undefined;
  const fields = chosen?.external
    ? (["internalTrafficPolicy", "externalTrafficPolicy"] as const)
    : (["internalTrafficPolicy"] as const);
  const policyField = fields.includes(field as never) ? field : "internalTrafficPolicy";

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const op = whatIfOf(kind, chosen, count, policyField);
    if (!op) return;
    setOpen(false);
    void runWhatIf(store, whatIfClient, describe(op), op);
  };

  return (
    <div className="ws-menu" ref={box}>
      <button
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => setOpen(!open)}
        disabled={!analysis || running}
      >
        What if…
      </button>
      {open ? (
        <form className="ws-popover" role="dialog" aria-label="What if" onSubmit={submit}>
          <label>
            Action
            <select
              aria-label="What-if action"
              value={kind}
              onChange={(e) => {
                setKind(e.target.value as MenuKind);
                setTarget("");
                setReplicas(undefined);
              }}
            >
              {ACTIONS.map((a) => (
                <option key={a.kind} value={a.kind}>
                  {a.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            On
            <select
              aria-label="What-if target"
              value={chosen?.value ?? ""}
              onChange={(e) => {
                setTarget(e.target.value);
                setReplicas(undefined);
              }}
            >
              {targets.length === 0 ? <option value="">nothing to act on</option> : null}
              {targets.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          {kind === "scale" ? (
            <label>
              Replicas
              <input
                type="number"
                aria-label="Replicas"
                min={0}
                max={500}
                value={count}
                onChange={(e) => setReplicas(Math.max(0, Math.floor(Number(e.target.value) || 0)))}
                style={{ width: 70 }}
              />
              <span className="muted">now {chosen?.replicas ?? 0}</span>
            </label>
          ) : null}
          {kind === "trafficPolicy" ? (
            <label>
              Field
              <select
                aria-label="Traffic policy field"
                value={policyField}
                onChange={(e) => setField(e.target.value as typeof field)}
              >
                {fields.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
              <span className="muted">
                {current ?? "Cluster"} → {current === "Local" ? "Cluster" : "Local"}
              </span>
            </label>
          ) : null}
          <p className="muted">
            The change is written into the editor (Ctrl+Z undoes it); the graph and the matrix then show what
            it changed.
          </p>
          <div className="ws-row">
            <button type="submit" className="btn primary small" disabled={!chosen}>
              Apply what-if
            </button>
            <button type="button" className="btn small" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
