import { describe, expect, it } from "vitest";
import { finish, Slices, sliced, type Pace, type Steps } from "./pace.ts";

/** A build of `n` loop steps that may pause at each, as the graph's mapping does. */
function* counting(n: number, pace: Pace, seen: number[], work = () => {}): Steps<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (pace.due()) yield;
    work();
    seen.push(i);
    sum += i;
  }
  return sum;
}

describe("a build a slice at a time", () => {
  it("ends a slice when its time is up, read from the clock every 64 steps, and gives what the build gave", () => {
    let clock = 0;
    const pace = new Slices(10, () => clock);
    const seen: number[] = [];
    // Each step of the loop takes a tenth of a millisecond: a slice of 10 ms ends at the first clock read past
    // it, the 128th look at the pace (12.7 ms in), so a slice holds 127 steps.
    const build = sliced(
      counting(1000, pace, seen, () => (clock += 0.1)),
      pace,
    );
    expect(build.step()).toBe(false);
    expect(seen.length).toBe(127);
    expect(build.result()).toBeUndefined();
    // 1,000 steps in slices of 127: eight slices, the last one ending the build.
    let slices = 1;
    do slices++;
    while (!build.step());
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(build.result()).toBe(499500);
    expect(slices).toBe(8);
    expect(build.step()).toBe(true);
  });

  it("runs to the end at once with finish", () => {
    const seen: number[] = [];
    expect(finish(counting(10, { due: () => true, over: () => true }, seen))).toBe(45);
    expect(seen).toHaveLength(10);
  });
});
