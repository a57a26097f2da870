/** What-if edits and comparisons run in the engine worker, through the page's one engine client. */
import { engineClient } from "../../worker/client.ts";
import type { WhatIfClient } from "./run.ts";

export const whatIfClient: WhatIfClient = {
  whatIf: (q) => engineClient().whatIf(q),
  diff: (q) => engineClient().diff(q),
};
