/**
 * The what-if worker: rewrites the text (engine whatif) and compares before
 * with after (engine diff) off the main thread, so the editor stays
 * responsive while the comparison runs. One request, one answer, by id.
 */
import { applyWhatIf, diffTexts } from "../../engine/index.ts";
import type { WhatIfRequest, WhatIfResponse } from "./protocol.ts";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WhatIfRequest>) => void) | null;
  postMessage(m: WhatIfResponse): void;
};

scope.onmessage = (e: MessageEvent<WhatIfRequest>) => {
  const r = e.data;
  try {
    if (r.method === "apply") {
      const result = applyWhatIf(r.text, r.op);
      const diff = result.changed ? diffTexts(r.text, result.text) : undefined;
      scope.postMessage({ id: r.id, ok: true, method: "apply", result, ...(diff ? { diff } : {}) });
    } else {
      scope.postMessage({ id: r.id, ok: true, method: "diff", diff: diffTexts(r.before, r.after) });
    }
  } catch (err) {
    scope.postMessage({ id: r.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
