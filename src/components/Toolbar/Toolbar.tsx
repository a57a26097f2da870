import { useDeferredValue, useEffect, useMemo, useState } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { LARGE } from "../Editor/mount.ts";
import { SCENARIOS, scenarioById } from "../../../scenarios/index.ts";
import { encodeShare, hashFor, LONG_LINK_CHARS } from "../../share/codec.ts";
import { viewOf } from "../../share/view.ts";
import { scenarioName } from "../../share/name.ts";
import { LessonMenu } from "../Lessons/LessonMenu.tsx";
import { WhatIfMenu } from "../WhatIf/WhatIfMenu.tsx";
import { PresentButton } from "../Presenter/PresenterPanel.tsx";
import { ExportMenu, OpenFile } from "../Export/ExportMenu.tsx";
import { RestorePreviousButton } from "../Session/SessionBars.tsx";
import { downloadText } from "./download.ts";
import { CNI_NAMES, type CniName } from "../../engine/cni/profile.ts";

const CNI_LABELS: Record<CniName, string> = {
  generic: "generic",
  calico: "Calico",
  cilium: "Cilium",
  "cilium-kpr": "Cilium KPR",
  flannel: "flannel",
};

/**
 * The cluster profile (engine/cni/profile.ts, `ktl --cni`): which CNI
 * enforces policy. "From input" lets the engine read it from the text
 * (cilium-config, calico-config), else generic; the engine's own words say
 * which one is in effect.
 */
function ProfilePicker() {
  const store = useAppStore();
  const cni = useApp((s) => s.cni);
  const profile = useApp((s) => s.analysis.result?.profile);
  const auto = profile && profile.source !== "chosen" ? CNI_LABELS[profile.cni as CniName] : undefined;
  return (
    <label className="filters" title={profile ? `Cluster profile: ${profile.text}` : "Cluster profile"}>
      <span className="q-label">CNI</span>
      <select
        aria-label="Cluster profile (CNI)"
        data-testid="cni-profile"
        data-cni={profile?.cni ?? ""}
        value={cni ?? ""}
        onChange={(e) => store.getState().setCni((e.target.value || undefined) as CniName | undefined)}
      >
        <option value="">{auto ? `${auto} (auto)` : "auto"}</option>
        {CNI_NAMES.map((n) => (
          <option
            key={n}
            value={n}
            title={n === "cilium-kpr" ? "Cilium with kube-proxy replacement" : undefined}
          >
            {CNI_LABELS[n]}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The profile's assumptions about the cluster around the application
 * (engine/cni/profile.ts ClusterAssumptions, `ktl trace --assume-istio-ingress`,
 * `--assume-injection`): Istio's ingress gateway, and sidecar injection in
 * every application namespace. Answers that use one say so.
 */
function AssumePicker() {
  const store = useAppStore();
  const assume = useApp((s) => s.assume);
  const set = (next: { istioIngress?: boolean; injection?: string[] }) => {
    const a = { ...assume, ...next };
    if (!a.istioIngress) delete a.istioIngress;
    if (!a.injection?.length) delete a.injection;
    store.getState().setAssume(a.istioIngress || a.injection ? a : undefined);
  };
  return (
    <details className="filters" data-testid="assume">
      <summary title="What the cluster holds that the YAML leaves out">Assume{assume ? " (on)" : ""}</summary>
      <label>
        <input
          type="checkbox"
          data-testid="assume-istio-ingress"
          checked={assume?.istioIngress === true}
          onChange={(e) => set({ istioIngress: e.target.checked })}
        />{" "}
        Istio ingress gateway
      </label>
      <label>
        <input
          type="checkbox"
          data-testid="assume-injection"
          checked={assume?.injection?.includes("*") === true}
          onChange={(e) => set({ injection: e.target.checked ? ["*"] : [] })}
        />{" "}
        Istio sidecars in every app namespace
      </label>
    </details>
  );
}

const NAME_PAUSE_MS = 400;

/**
 * `text` itself while it is small; one the editor hands over after a pause (above mount.ts LARGE) as it stood
 * when it last stayed the same for NAME_PAUSE_MS.
 */
function useSettled(text: string): string {
  const [settled, setSettled] = useState(text);
  const large = text.length > LARGE;
  useEffect(() => {
    if (!large) return;
    const t = setTimeout(() => setSettled(text), NAME_PAUSE_MS);
    return () => clearTimeout(t);
  }, [text, large]);
  return large ? settled : text;
}

export function Toolbar() {
  const store = useAppStore();
  const theme = useApp((s) => s.theme);
  const scenarioId = useApp((s) => s.scenarioId);
  // The name reads the whole text (its namespaces): in a render after the keystroke's own, not in it, and
  // for a large text once typing pauses (at 10,000 pods, 7.7 MB, the read took 15 to 20 ms a keystroke).
  const text = useSettled(useDeferredValue(useApp((s) => s.text)));
  const name = useMemo(() => scenarioName(text, scenarioId), [text, scenarioId]);
  const status = useApp((s) => s.analysis.status);
  const paused = useApp((s) => s.paused);
  const millis = useApp((s) => s.analysis.result?.stats.millis);

  const share = async () => {
    const state = store.getState();
    const { text, scenarioId: sid } = state;
    const view = viewOf(state);
    const r = encodeShare(sid ? { text, scenario: sid, view } : { text, view });
    if (!r.ok) {
      store.getState().notify({ kind: "error", text: r.error, offerDownload: true });
      return;
    }
    const url = `${location.origin}${location.pathname}${location.search}${hashFor(r.payload)}`;
    history.replaceState(null, "", url);
    if (r.payload.length > LONG_LINK_CHARS) {
      // Chat tools and some mail clients cut links this long: say so, and offer the file instead of copying.
      store.getState().notify({
        kind: "info",
        offerDownload: true,
        text: `This link is long (${Math.ceil(url.length / 1024)} KB): chat tools and some browsers cut links past about 8 KB, and the recipient would get a damaged link. Send the scenario as a file instead, or copy the link from the address bar if you know it will arrive whole.`,
      });
      return;
    }
    let copied = false;
    try {
      await navigator.clipboard.writeText(url);
      copied = true;
    } catch {
      copied = false;
    }
    store.getState().notify({
      kind: "info",
      text: copied
        ? "Link copied. The whole scenario is inside the link itself: nothing was uploaded, nothing leaves your browser."
        : "The link is in the address bar: copy it from there. The whole scenario is inside the link itself: nothing was uploaded.",
    });
  };

  const openScenario = (id: string) => {
    const s = scenarioById(id);
    if (!s) return;
    const previous = store.getState().text;
    // The user's own text (not an untouched catalogue scenario) is kept for Previous text before it is replaced.
    if (previous !== s.manifests && !SCENARIOS.some((c) => c.manifests === previous))
      store.getState().keepPreviousText(previous);
    store.getState().replaceText(s.manifests, "scenario", s.id);
    if (previous !== s.manifests)
      store.getState().notify({ kind: "info", text: `Opened “${s.title}”.`, undoText: previous });
  };

  return (
    <header className="toolbar">
      <div className="brand">
        <img src="./favicon.svg" alt="" />
        <h1 style={{ font: "inherit", margin: 0 }}>Kube Traffic Lab</h1>
      </div>
      <label className="filters">
        <span className="visually-hidden">Scenario</span>
        <select
          aria-label="Scenario"
          value={name.scenarioId ?? ""}
          onChange={(e) => openScenario(e.target.value)}
          data-testid="scenario-name"
          data-name={name.title}
        >
          {!name.scenarioId ? <option value="">{name.title}</option> : null}
          {SCENARIOS.map((s) => (
            <option key={s.id} value={s.id} title={s.summary}>
              {s.title}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="btn small"
        onClick={() => scenarioId && openScenario(scenarioId)}
        disabled={!scenarioId || !scenarioById(scenarioId)}
        title="Put the scenario's original text back (undoable)"
      >
        Reset
      </button>
      <RestorePreviousButton />
      <LessonMenu />
      <WhatIfMenu />
      <PresentButton />
      <ProfilePicker />
      <AssumePicker />
      <span className="spacer" />
      <span
        className="status"
        role="status"
        data-status={paused ? "paused" : status}
        data-testid="engine-status"
        title={millis !== undefined ? `The engine analysed the text in ${millis} ms` : undefined}
      >
        {paused
          ? "Paused"
          : status === "running"
            ? "Analysing…"
            : status === "error"
              ? "Engine error"
              : millis !== undefined
                ? `${millis} ms`
                : ""}
      </span>
      <span
        className="privacy"
        title="Runs in your browser: nothing leaves it. The engine runs in a Web Worker in this tab; share links carry the scenario inside the URL."
      >
        <svg width="11" height="12" viewBox="0 0 11 12" aria-hidden="true" style={{ verticalAlign: "-1px" }}>
          <rect x="1" y="5" width="9" height="6.5" rx="1.2" fill="currentColor" />
          <path d="M3 5V3.6a2.5 2.5 0 0 1 5 0V5" fill="none" stroke="currentColor" strokeWidth="1.3" />
        </svg>{" "}
        <span className="privacy-text">Nothing leaves your browser</span>
      </span>
      <OpenFile />
      <ExportMenu />
      <button
        type="button"
        className="btn small"
        onClick={() => downloadText(store)}
        title="Download the editor text as a YAML file"
      >
        Download
      </button>
      <button type="button" className="btn primary" onClick={() => void share()}>
        Share
      </button>
      <button
        type="button"
        className="btn small"
        aria-label={theme === "dark" ? "Switch to light theme" : "Switch to dark theme"}
        title={theme === "dark" ? "Light theme" : "Dark theme"}
        onClick={() => store.getState().setTheme(theme === "dark" ? "light" : "dark")}
      >
        {theme === "dark" ? "☀" : "☾"}
      </button>
    </header>
  );
}

export function NoticeBar() {
  const store = useAppStore();
  const notice = useApp((s) => s.notice);
  if (!notice) return null;
  return (
    <div
      className="notice"
      data-kind={notice.kind}
      role={notice.kind === "error" ? "alert" : "status"}
      data-testid="notice"
    >
      <p>{notice.text}</p>
      {notice.offerDownload ? (
        <button type="button" className="btn small" onClick={() => downloadText(store)}>
          Download the file
        </button>
      ) : null}
      {notice.undoScenario ? (
        <button type="button" className="btn small" onClick={() => store.getState().undoNewScenario()}>
          Undo
        </button>
      ) : null}
      {notice.undoText !== undefined ? (
        <button
          type="button"
          className="btn small"
          onClick={() => {
            store.getState().replaceText(notice.undoText!, "restore", undefined);
            store.getState().notify({ kind: "info", text: "Your previous text is back." });
          }}
        >
          {notice.undoLabel ?? "Undo"}
        </button>
      ) : null}
      <button
        type="button"
        className="btn small"
        aria-label="Dismiss"
        onClick={() => store.getState().notify(undefined)}
      >
        ✕
      </button>
    </div>
  );
}
