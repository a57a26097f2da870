/**
 * The Observed tab shows what the engine compared (the handler's own answer
 * on the fixture with planted disagreements), never deciding: each row with
 * its case, the counts seen, the prediction and the tested explanation, and
 * data-case / data-source / data-target for tests and the graph.
 */
import { readFileSync } from "node:fs";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { createEngineHandlers } from "../../worker/handlers.ts";
import { ObserveResult, observeStatus } from "./ObservePanel.tsx";

const dir = new URL("../../../scenarios/fixtures/observed-vs-predicted/", import.meta.url);
const manifests = readFileSync(new URL("manifests.yaml", dir), "utf8");
const flows = readFileSync(new URL("calico-flows.jsonl", dir), "utf8");

type Run = Parameters<typeof observeStatus>[0]["run"];

function render(file: string, text: string): { status: string; html: string } {
  const { handlers } = createEngineHandlers();
  handlers.analyze({ text: manifests, file: "manifests.yaml", generation: 1 });
  const view = handlers.observe({ text, file });
  const run: Run = { status: "ready", revision: 3, text, result: view, error: undefined };
  const status = observeStatus({ file, text, run, revision: 3 });
  const html = renderToStaticMarkup(<ObserveResult status={status} view={view} onAsk={() => {}} />).replace(
    /<!-- -->/g,
    "",
  );
  return { status, html };
}

describe("ObservePanel", () => {
  it("asks for a file when none is open, and says when it is comparing", () => {
    const idle: Run = { status: "idle", revision: -1, text: "", result: undefined, error: undefined };
    expect(observeStatus({ file: "", text: "", run: idle, revision: 0 })).toMatch(
      /^Open or drop a flow file: Hubble/,
    );
    expect(observeStatus({ file: "f.csv", text: "x", run: idle, revision: 0 })).toBe("Comparing…");
  });

  it("shows the engine's rows: the four cases, counts, prediction, explanation", () => {
    const { status, html } = render("calico-flows.jsonl", flows);
    expect(status).toBe("12 records: 10 matched, 2 unmatched. 3 of 6 rows disagree with the manifests.");
    const cases = [...html.matchAll(/data-case="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(cases)).toEqual(
      new Set([
        "agree-allowed",
        "agree-dropped",
        "observed-forwarded-but-predicted-dropped",
        "observed-dropped-but-predicted-allowed",
      ]),
    );
    expect(html).toMatch(/seen 0 forwarded, 14 dropped; predicted allowed/);
    expect(html).toMatch(
      /a default-deny ingress NetworkPolicy in namespace analytics would explain 14 of 15 drops/,
    );
    expect(html).toMatch(/data-target="pod:shop\/backend-/);
    expect(html).toMatch(/Not matched to the manifests \(2 records\)/);
  });

  it("names the unreadable records and compares nothing", () => {
    const { status, html } = render("bad.jsonl", "{not json\n");
    expect(status).toBe("bad.jsonl has 1 unreadable record: nothing is compared.");
    expect(html).toMatch(/bad\.jsonl:1<\/span> <span>not valid JSON/);
    expect(html).not.toMatch(/data-case/);
  });
});
