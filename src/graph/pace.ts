/**
 * A build that can pause between slices of its work: the graph's mapping of a large answer runs a slice per
 * main-thread task (store/engineSync.ts drives it), so no task of the page while typing holds the thread for the
 * whole mapping (at 2,000 pods 30 to 70 ms, at 10,000 80 to 190 ms in Chromium's traces of the bench's edits).
 *
 * A builder is a generator (`Steps`): it yields where it may stop, when its `Pace` says the slice's time is up,
 * and returns what it built. `finish` runs one to the end in one go (tests, the CLI, a small answer).
 */

/** A build that yields where it may pause and returns what it built. */
export type Steps<T> = Generator<undefined, T, undefined>;

/**
 * Where a build may pause: `due()` in a long loop (it reads the clock every few calls), `over()` between two
 * steps of the build (it reads the clock each time); each is true when the slice's time is up.
 */
export interface Pace {
  due(): boolean;
  over(): boolean;
}

/** A pace that never pauses: the build runs to its end at once. */
export const NEVER: Pace = { due: () => false, over: () => false };

/** Runs a build to its end, in one go, and gives what it built. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Calls to `due` between two looks at the clock: a loop's step is a microsecond or so, a clock read more. */
const CHECK_EVERY = 64;

/** Slices of `ms` each: `begin` starts one, and `due` is true once it has run its time. */
export class Slices implements Pace {
  private calls = 0;
  private until = Number.POSITIVE_INFINITY;

  constructor(
    private readonly ms: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  begin(): void {
    this.calls = 0;
    this.until = this.now() + this.ms;
  }

  due(): boolean {
    if (++this.calls % CHECK_EVERY !== 0) return false;
    return this.now() >= this.until;
  }

  over(): boolean {
    return this.now() >= this.until;
  }
}

/** A build run a slice at a time: `step` runs one slice and says whether the build has ended. */
export interface Sliced<T> {
  step(): boolean;
  /** What the build gave, once `step` said it ended. */
  result(): T | undefined;
}

/** `steps`, built a slice of `pace` at a time. */
export function sliced<T>(steps: Steps<T>, pace: Slices): Sliced<T> {
  let done = false;
  let value: T | undefined;
  return {
    step() {
      if (done) return true;
      pace.begin();
      const r = steps.next();
      if (r.done) {
        done = true;
        value = r.value;
      }
      return done;
    },
    result: () => value,
  };
}

/**
 * Runs a build with a pace that is always due, and counts its pauses and the times it asked the pace: a test
 * holds where a build may pause with it (each question a pause, and a pause in each long loop's step).
 */
export function everyPause<T>(build: (pace: Pace) => Steps<T>): { value: T; pauses: number; asked: number } {
  let asked = 0;
  const always = (): boolean => (asked++, true);
  const steps = build({ due: always, over: always });
  let pauses = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, pauses, asked };
    pauses++;
  }
}
