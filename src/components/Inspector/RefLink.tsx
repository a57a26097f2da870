import { useAppStore } from "../../store/StoreProvider.tsx";
import type { RefView } from "../../engine/analysis/index.ts";

export function refText(r: RefView): string {
  return `${r.kind} ${r.namespace !== undefined ? `${r.namespace}/` : ""}${r.name}`;
}

/** A reference to the YAML: moves the editor to the line and highlights it. */
export function RefLink({ refView }: { refView: RefView }) {
  const store = useAppStore();
  if (!refView.line) return <span>{refText(refView)}</span>;
  return (
    <button
      type="button"
      className="link"
      data-line={refView.line}
      onClick={() => store.getState().revealLine(refView.line)}
      title={`Show line ${refView.line} in the editor`}
    >
      {refText(refView)} · line {refView.line}
    </button>
  );
}

export function LineLink({ line, children }: { line: number; children: React.ReactNode }) {
  const store = useAppStore();
  if (!line) return <>{children}</>;
  return (
    <button type="button" className="link" data-line={line} onClick={() => store.getState().revealLine(line)}>
      {children}
    </button>
  );
}
