import { CATEGORIES, GLYPH_PATHS, NOTES, type EdgeNoteId } from "../../graph/verdicts.ts";
import { OBSERVED_CASES } from "../../graph/observedMarks.ts";
import type { ObserveCase } from "../../engine/observe/report.ts";
import { useApp } from "../../store/StoreProvider.tsx";
import { verdictsHidden } from "../Lessons/predict.ts";

/** The legend is drawn from the same table as the edges: colour, dash and glyph, and the notes (tags) the graph shows. */
export function Legend({
  note,
  warning,
  notes = [],
  find,
  loops = false,
  quiet = false,
  observed = [],
}: {
  /** The cases of a flow file's rows drawn on the edges: each gets its glyph. */
  observed?: readonly ObserveCase[];
  note?: string | undefined;
  /** What the picture leaves out under the filters chosen, said where it does not cover the graph. */
  warning?: string | undefined;
  notes?: readonly EdgeNoteId[];
  find?: React.ReactNode;
  /** The picture has loops (drops between members of one folded box). */
  loops?: boolean;
  /** The picture has isolation hairlines (refused on both sides). */
  quiet?: boolean;
}) {
  const hidden = useApp(verdictsHidden);
  // The cluster tier's entry only where the input has tier policies (ClusterNetworkPolicy, AdminNetworkPolicy, BANP).
  const tiers = useApp((s) => (s.analysis.result?.tiers.length ?? 0) > 0);
  if (hidden)
    return (
      <div className="legend" role="group" aria-label="Legend" data-hidden="true">
        <span className="legend-title">Edges</span>
        <span>Verdicts are hidden: predict the lesson's questions, then reveal the answer.</span>
        {find}
      </div>
    );
  return (
    <div className="legend" role="group" aria-label="Legend">
      <span className="legend-title">Edges</span>
      {CATEGORIES.filter((c) => c.id !== "tier" || tiers).map((c) => (
        <span key={c.id} className="item" data-category={c.id}>
          <svg width="44" height="16" viewBox="0 0 44 16" aria-hidden="true">
            <line
              x1="1"
              y1="8"
              x2="43"
              y2="8"
              style={{ stroke: `var(${c.colour})` }}
              strokeWidth="2.2"
              strokeDasharray={c.dash || undefined}
            />
            <g transform="translate(22 8)">
              <circle r="6.5" className="edge-glyph-bg" style={{ stroke: `var(${c.colour})` }} />
              <path
                d={GLYPH_PATHS[c.glyph]}
                transform="scale(0.85)"
                style={{
                  stroke: `var(${c.colour})`,
                  fill: c.glyph === "half" ? `var(${c.colour})` : "none",
                  strokeWidth: 1.8,
                }}
              />
            </g>
          </svg>
          <span>{c.label}</span>
        </span>
      ))}
      {loops ? (
        <span className="item" data-shape="loop">
          <svg width="26" height="16" viewBox="0 0 26 16" aria-hidden="true">
            <rect
              x="1"
              y="2"
              width="8"
              height="12"
              rx="2"
              fill="none"
              stroke="var(--muted)"
              strokeWidth="1.4"
            />
            <path
              d="M 9 4 C 22 0, 22 16, 9 12"
              fill="none"
              stroke="var(--drop)"
              strokeWidth="1.8"
              strokeDasharray="4 2"
            />
          </svg>
          <span>drops inside a box</span>
        </span>
      ) : null}
      {quiet ? (
        <span className="item" data-shape="quiet">
          <svg width="44" height="16" viewBox="0 0 44 16" aria-hidden="true">
            <line
              x1="1"
              y1="8"
              x2="43"
              y2="8"
              className="legend-quiet"
              style={{ stroke: "var(--drop)" }}
              strokeWidth="1.2"
              strokeDasharray="9 4"
            />
          </svg>
          <span>refused on both sides (isolation)</span>
        </span>
      ) : null}
      {observed.length ? <span className="legend-title">Observed</span> : null}
      {OBSERVED_CASES.filter((c) => observed.includes(c.id)).map((c) => (
        <span key={c.id} className="item" data-observed={c.id}>
          <svg width="18" height="18" viewBox="-9 -9 18 18" aria-hidden="true">
            <path d={c.frame} className="frame" />
            <path d={c.inner} className="inner" />
          </svg>
          <span>{c.label}</span>
        </span>
      ))}
      {NOTES.filter((n) => notes.includes(n.id)).map((n) => (
        <span key={n.id} className="item" data-note={n.id}>
          <span className="legend-tag">{n.sample}</span>
          <span>{n.label}</span>
        </span>
      ))}
      {find}
      {note ? (
        <span className="muted" role="status">
          {note}
        </span>
      ) : null}
      {warning ? (
        <span role="status" data-testid="layer-unplaced">
          {warning}
        </span>
      ) : null}
    </div>
  );
}
