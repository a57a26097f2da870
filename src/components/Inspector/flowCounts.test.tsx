import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Analysis } from "../../engine/analysis/index.ts";
import { FlowCounts } from "./DetailsPanel.tsx";

const flows = (...verdicts: string[]) => verdicts.map((verdict) => ({ verdict }));
const text = (a: Partial<Analysis>) =>
  renderToStaticMarkup(<FlowCounts a={a as Analysis} />).replace(/<!-- -->/g, "");

describe("the intro's count of what the graph draws", () => {
  it("small inputs: the drawn flows, dropped or partial among them", () => {
    expect(text({ flows: flows("allow", "drop", "partial") } as never)).toBe(
      "2 of 3 drawn flows are dropped or partial.",
    );
  });

  it("at scale the graph draws workload-to-Service connections: allowed ones drawn, dropped ones counted", () => {
    // The M screenshot read "4036 of 4048 drawn flows are dropped or partial" above an all-allowed graph:
    // those were Service-to-pod flows, partial because some clients are refused, not the edges drawn.
    const a = {
      flows: flows(...Array(12).fill("allow"), ...Array(4036).fill("partial")),
      reach: { flows: flows("allow", "allow", "partial"), dropped: 250, omitted: 7 },
    };
    expect(text(a as never)).toBe(
      "Workload to Service: 10 connections are allowed (1 of them by only some of the Service&#x27;s pods); 250 are dropped (drawn as drop edges; Only drops shows them alone). Service to pod: 4036 of 4048 flows refuse some or all of their clients.",
    );
  });
});
