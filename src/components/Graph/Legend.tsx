const LINES: { cls: string; label: string; dash?: string; color: string }[] = [
  { cls: "allow", label: "allowed", color: "var(--allow)" },
  { cls: "drop", label: "dropped by NetworkPolicy", color: "var(--drop)" },
  { cls: "traffic", label: "dropped by traffic policy", dash: "2 4", color: "var(--traffic)" },
  { cls: "partial", label: "partly allowed", dash: "7 4", color: "var(--partial)" },
];

export function Legend({ note }: { note?: string | undefined }) {
  return (
    <div className="legend" role="group" aria-label="Legend">
      <span className="legend-title">Edges</span>
      {LINES.map((l) => (
        <span key={l.cls} className="item">
          <svg width="26" height="10" aria-hidden="true">
            <line x1="1" y1="5" x2="25" y2="5" stroke={l.color} strokeWidth="2.2" strokeDasharray={l.dash} strokeLinecap="round" />
          </svg>
          <span>{l.label}</span>
        </span>
      ))}
      {note ? (
        <span className="muted" role="status">
          {note}
        </span>
      ) : null}
    </div>
  );
}
