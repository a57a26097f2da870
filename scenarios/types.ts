/** The catalogue's types, apart from its lists so that lessons.ts and index.ts do not import each other. */

export type ExpectedVerdict = "allow" | "drop" | "partial";

export interface ScenarioExpectation {
  /** Trace source in `ktl trace` syntax: pod:NS/NAME, node:NAME, external:IP@NODE. */
  from: string;
  /** Trace destination in `ktl trace` syntax: service:NS/NAME:PORT, pod:NS/NAME:PORT. */
  to: string;
  verdict: ExpectedVerdict;
}

export interface Scenario {
  id: string;
  title: string;
  summary: string;
  /** The file name the playground shows and the engine reports in diagnostics. */
  file: string;
  manifests: string;
  expect: readonly ScenarioExpectation[];
}
