import { ControlButton, Controls } from "@xyflow/react";

/** The graph's buttons beside React Flow's zoom: fit view (legible zoom, labels included) and the minimap. */
export function GraphControls({
  fit,
  miniMap,
  setMiniMap,
}: {
  fit: () => void;
  miniMap: boolean;
  setMiniMap: (on: boolean) => void;
}) {
  return (
    <Controls showInteractive={false} showFitView={false}>
      <ControlButton
        onClick={fit}
        className="react-flow__controls-fitview"
        title="Fit view"
        aria-label="Fit view"
      >
        <svg viewBox="0 0 16 16" aria-hidden="true">
          <path
            d="M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
          />
        </svg>
      </ControlButton>
      <ControlButton
        onClick={() => setMiniMap(!miniMap)}
        title={miniMap ? "Hide the minimap" : "Show the minimap"}
        aria-label={miniMap ? "Hide the minimap" : "Show the minimap"}
        aria-pressed={miniMap}
      >
        <svg viewBox="0 0 16 16" aria-hidden="true">
          <rect
            x="1.5"
            y="3"
            width="13"
            height="10"
            rx="1.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.4"
          />
          <rect x="8" y="8" width="5" height="3.5" fill="currentColor" />
        </svg>
      </ControlButton>
    </Controls>
  );
}
