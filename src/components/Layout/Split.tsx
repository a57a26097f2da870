import { useCallback, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";

interface Props {
  direction: "horizontal" | "vertical";
  /** Fraction of the space given to the first pane. */
  initial: number;
  min?: number;
  max?: number;
  /** Accessible name of the separator. */
  label: string;
  storageKey?: string;
  first: ReactNode;
  second: ReactNode;
}

function stored(key: string | undefined, fallback: number): number {
  if (!key) return fallback;
  try {
    const v = Number(localStorage.getItem(key));
    return Number.isFinite(v) && v > 0 && v < 1 ? v : fallback;
  } catch {
    return fallback;
  }
}

/** Two panes and a separator that a mouse drags and the keyboard moves (arrows, Home, End). */
export function Split({
  direction,
  initial,
  min = 0.15,
  max = 0.85,
  label,
  storageKey,
  first,
  second,
}: Props) {
  const [fraction, setFraction] = useState(() => stored(storageKey, initial));
  const box = useRef<HTMLDivElement>(null);
  const horizontal = direction === "horizontal";

  const commit = useCallback(
    (f: number) => {
      const v = Math.min(max, Math.max(min, f));
      setFraction(v);
      try {
        if (storageKey) localStorage.setItem(storageKey, String(v));
      } catch {
        /* sizes are a nicety */
      }
    },
    [min, max, storageKey],
  );

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    const el = box.current;
    if (!el) return;
    e.preventDefault();
    const target = e.currentTarget;
    target.setPointerCapture(e.pointerId);
    const rect = el.getBoundingClientRect();
    const move = (ev: globalThis.PointerEvent) =>
      commit(horizontal ? (ev.clientX - rect.left) / rect.width : (ev.clientY - rect.top) / rect.height);
    const up = () => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", up);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 0.1 : 0.02;
    const less = horizontal ? "ArrowLeft" : "ArrowUp";
    const more = horizontal ? "ArrowRight" : "ArrowDown";
    if (e.key === less) commit(fraction - step);
    else if (e.key === more) commit(fraction + step);
    else if (e.key === "Home") commit(min);
    else if (e.key === "End") commit(max);
    else return;
    e.preventDefault();
  };

  return (
    <div ref={box} className={`split ${horizontal ? "" : "vertical"}`}>
      <div className="pane" style={{ flex: `0 0 ${fraction * 100}%` }}>
        {first}
      </div>
      <div
        className="splitter"
        role="separator"
        tabIndex={0}
        aria-label={label}
        aria-orientation={horizontal ? "vertical" : "horizontal"}
        aria-valuemin={Math.round(min * 100)}
        aria-valuemax={Math.round(max * 100)}
        aria-valuenow={Math.round(fraction * 100)}
        onPointerDown={onPointerDown}
        onKeyDown={onKeyDown}
      />
      <div className="pane" style={{ flex: "1 1 0" }}>
        {second}
      </div>
    </div>
  );
}
