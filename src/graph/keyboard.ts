/** The graph's keyboard: which key does what, and which element an arrow moves to. Pure. */
export type Dir = "left" | "right" | "up" | "down";
export type KeyAction =
  | { kind: "move"; dir: Dir }
  | { kind: "open" }
  | { kind: "fold" }
  | { kind: "toggle" }
  | { kind: "edge"; step: 1 | -1 }
  | { kind: "clear" };

export function graphKeyAction(key: string): KeyAction | undefined {
  switch (key) {
    case "ArrowLeft":
      return { kind: "move", dir: "left" };
    case "ArrowRight":
      return { kind: "move", dir: "right" };
    case "ArrowUp":
      return { kind: "move", dir: "up" };
    case "ArrowDown":
      return { kind: "move", dir: "down" };
    case "+":
    case "=":
      return { kind: "open" };
    case "-":
    case "_":
      return { kind: "fold" };
    case "Enter":
    case " ":
      return { kind: "toggle" };
    case "]":
      return { kind: "edge", step: 1 };
    case "[":
      return { kind: "edge", step: -1 };
    case "Escape":
      return { kind: "clear" };
    default:
      return undefined;
  }
}

interface Box {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The nearest element in the arrow's direction (distance along it, plus twice the distance across); from nothing, the top-left one. */
export function nextByArrow(boxes: readonly Box[], from: string | undefined, dir: Dir): string | undefined {
  const cur = from ? boxes.find((b) => b.id === from) : undefined;
  if (!cur) {
    let best: Box | undefined;
    for (const b of boxes) if (!best || b.x + b.y < best.x + best.y) best = b;
    return best?.id;
  }
  const cx = cur.x + cur.width / 2;
  const cy = cur.y + cur.height / 2;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const b of boxes) {
    if (b.id === cur.id) continue;
    const dx = b.x + b.width / 2 - cx;
    const dy = b.y + b.height / 2 - cy;
    const along = dir === "left" ? -dx : dir === "right" ? dx : dir === "up" ? -dy : dy;
    const across = dir === "left" || dir === "right" ? Math.abs(dy) : Math.abs(dx);
    if (along <= 1) continue;
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = b.id;
    }
  }
  return best;
}
