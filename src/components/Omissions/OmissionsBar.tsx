/**
 * The banner above the answer when it leaves part of the input out: documents
 * that could not be read, objects and fields ktl does not evaluate, objects a
 * later definition replaced. Each is also a Problem with its line; this only
 * shows what the engine returned (Analysis.omissions), so nothing is left out
 * in silence.
 */
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";

export function OmissionsBar() {
  const store = useAppStore();
  const o = useApp((s) => s.analysis.result?.omissions);
  if (!o || o.skipped.length + o.unmodelled.length + o.replaced.length === 0) return null;
  const fields = o.unmodelled.filter((u) => u.field !== undefined);
  const objects = o.unmodelled.filter((u) => u.field === undefined);
  const line = (n: number) => (
    <button type="button" className="link mono" onClick={() => store.getState().revealLine(n)} disabled={!n}>
      line {n}
    </button>
  );
  const parts: { key: string; text: string; items: { label: string; line: number }[] }[] = [];
  if (o.skipped.length)
    parts.push({
      key: "skipped",
      text: `${o.skipped.length} document${o.skipped.length === 1 ? "" : "s"} could not be read: every answer here misses ${o.skipped.length === 1 ? "it" : "them"}.`,
      items: o.skipped.map((s) => ({ label: `${s.object ?? "a document"} (${s.code})`, line: s.line })),
    });
  if (objects.length)
    parts.push({
      key: "objects",
      text: `${objects.length} object${objects.length === 1 ? "" : "s"} that could change an answer ${objects.length === 1 ? "is" : "are"} not evaluated.`,
      items: objects.map((u) => ({ label: u.object, line: u.line })),
    });
  if (fields.length)
    parts.push({
      key: "fields",
      text: `${fields.length} field${fields.length === 1 ? "" : "s"} that could change an answer ${fields.length === 1 ? "is" : "are"} not evaluated.`,
      items: fields.map((u) => ({ label: `${u.object} ${u.field}`, line: u.line })),
    });
  if (o.replaced.length)
    parts.push({
      key: "replaced",
      text: `${o.replaced.length} object${o.replaced.length === 1 ? " is" : "s are"} defined twice: the later definition replaces the earlier, as kubectl apply does.`,
      items: o.replaced.map((r) => ({ label: `${r.object} (replaced by line ${r.byLine})`, line: r.line })),
    });
  return (
    <div
      className="notice"
      data-kind={o.skipped.length ? "error" : "info"}
      role="status"
      data-testid="omissions-banner"
    >
      <div className="notice-body">
        <p>
          <strong>This answer leaves part of the input out.</strong> {parts.map((p) => p.text).join(" ")}
        </p>
        <details>
          <summary>What is left out</summary>
          <ul>
            {parts.flatMap((p) =>
              p.items.map((it, i) => (
                <li key={`${p.key}-${i}`} data-omission={p.key}>
                  {it.label} {line(it.line)}
                </li>
              )),
            )}
          </ul>
        </details>
      </div>
    </div>
  );
}
