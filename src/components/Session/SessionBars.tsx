/**
 * The bars that keep work safe (issue 16): safe mode after a load that
 * crashed or hung, the warning when another tab saved over this tab's text,
 * and the permanent entry that brings back the text something replaced.
 */
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { downloadText } from "../Toolbar/download.ts";

export function SafeModeBar() {
  const store = useAppStore();
  const paused = useApp((s) => s.paused);
  if (!paused) return null;
  return (
    <div className="notice" data-kind="error" role="alert" data-testid="safe-mode">
      <p>
        Safe mode: the last visit did not finish loading (the tab crashed or stopped responding), so your text
        opened without being analysed. It is intact: edit it, download it, or resume the analysis.
      </p>
      <button type="button" className="btn small primary" onClick={() => store.getState().resumeAnalysis()}>
        Resume analysis
      </button>
      <button type="button" className="btn small" onClick={() => downloadText(store)}>
        Save the text as a file
      </button>
    </div>
  );
}

export function TabConflictBar() {
  const store = useAppStore();
  const conflict = useApp((s) => s.tabConflict);
  if (!conflict) return null;
  const lines = conflict.otherText.split("\n").length;
  return (
    <div className="notice" data-kind="error" role="alert" data-testid="tab-conflict">
      <p>
        Another tab saved different text ({lines} lines) over this tab&apos;s saved work. This tab stopped
        saving so that neither is lost. Choose which to keep; the other stays available as the previous text.
      </p>
      <button type="button" className="btn small" onClick={() => store.getState().resolveTabConflict("mine")}>
        Keep this tab&apos;s text
      </button>
      <button
        type="button"
        className="btn small"
        onClick={() => store.getState().resolveTabConflict("theirs")}
      >
        Open the other tab&apos;s text
      </button>
    </div>
  );
}

export function RestorePreviousButton() {
  const store = useAppStore();
  const available = useApp((s) => s.previous !== undefined && s.previous !== s.text);
  if (!available) return null;
  return (
    <button
      type="button"
      className="btn small"
      data-testid="restore-previous"
      title="Bring back the text that a link, a scenario or another tab replaced; the current text is kept in its place"
      onClick={() => {
        store.getState().restorePrevious();
        store.getState().notify({
          kind: "info",
          text: "Your previous text is back. The text it replaced is kept: Previous text swaps them again.",
        });
      }}
    >
      Previous text
    </button>
  );
}
