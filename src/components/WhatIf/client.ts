/** The playground's what-if worker, started on first use. */
import WhatIfWorker from "./whatif.worker.ts?worker";
import { createWhatIfClient } from "./run.ts";
import type { WhatIfWorkerLike } from "./protocol.ts";

export const whatIfClient = createWhatIfClient(() => new WhatIfWorker() as unknown as WhatIfWorkerLike);
