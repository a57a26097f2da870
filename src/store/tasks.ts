/**
 * Work the page splits into tasks of its own (a large answer's mapping, its drop list): each function runs in
 * a task after what is queued, in order. A message to itself, which Chromium does not hold back as it holds
 * nested zero timeouts (4 ms each past the fifth), so the slices follow each other at once when nothing else
 * waits, and a keystroke or a frame that does wait goes between them (React's scheduler yields the same way).
 */
export function taskQueue(): (f: () => void) => void {
  const queue: (() => void)[] = [];
  let channel: MessageChannel | undefined;
  return (f) => {
    queue.push(f);
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => queue.shift()?.();
    }
    channel.port2.postMessage(undefined);
  };
}

let shared: ((f: () => void) => void) | undefined;

/** Runs `f` in a task of its own, after the page's other split work queued before it. */
export function nextTask(f: () => void): void {
  (shared ??= taskQueue())(f);
}

/**
 * Runs `step` a task at a time (through `next`) while `going()` holds, until it says its work has ended, then
 * `done` in that last task: the driver of the page's sliced work (a large answer's mapping, its drop list).
 */
export function inSlices(
  step: () => boolean,
  going: () => boolean,
  done: () => void,
  next: (f: () => void) => void = nextTask,
): void {
  const slice = () => {
    if (!going()) return;
    if (!step()) return next(slice);
    done();
  };
  next(slice);
}
