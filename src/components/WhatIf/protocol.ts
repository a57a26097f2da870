/** Messages between the playground and the what-if worker. */
import type { InputDiff, WhatIf, WhatIfResult } from "../../engine/index.ts";

export type WhatIfRequest =
  | { id: number; method: "apply"; text: string; op: WhatIf }
  | { id: number; method: "diff"; before: string; after: string };

export type WhatIfResponse =
  | { id: number; ok: true; method: "apply"; result: WhatIfResult; diff?: InputDiff }
  | { id: number; ok: true; method: "diff"; diff: InputDiff }
  | { id: number; ok: false; error: string };

export interface WhatIfWorkerLike {
  postMessage(m: WhatIfRequest): void;
  onmessage: ((e: MessageEvent<WhatIfResponse>) => void) | null;
  onerror: ((e: Event) => void) | null;
}
