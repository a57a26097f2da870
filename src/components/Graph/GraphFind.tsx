import { useMemo, useState } from "react";
import { useApp, useSettledResult } from "../../store/StoreProvider.tsx";
import { findMatches, searchIndex, type Match } from "../../graph/search.ts";

/**
 * Find a pod, workload, Service or namespace: opens what folds it, then the canvas centres and selects it.
 * The index of every findable name is built while the box is in use (focused, or holding a query), not for
 * every answer: at 2,000 pods it took about 20 ms of the main thread after each keystroke's draw (Chromium's
 * profile of the bench's edits), for a box most edits never touch.
 */
export function GraphFind({ onFind }: { onFind: (m: Match) => void }) {
  const result = useSettledResult();
  const nsGroupBy = useApp((s) => s.nsGroupBy);
  const [query, setQuery] = useState("");
  const [focused, setFocused] = useState(false);
  const inUse = focused || query !== "";
  const index = useMemo(
    () => (result && inUse ? searchIndex(result, nsGroupBy) : []),
    [result, nsGroupBy, inUse],
  );
  const [status, setStatus] = useState("");
  const matches = useMemo(() => findMatches(index, query), [index, query]);
  const go = (ev: React.FormEvent) => {
    ev.preventDefault();
    const q = query.trim();
    const m = matches.find((x) => `${x.kind} ${x.name}` === q || x.name === q) ?? matches[0];
    if (!m) {
      setStatus(q ? `Nothing named “${q}”` : "");
      return;
    }
    setStatus(`${m.kind} ${m.name}`);
    onFind(m);
  };
  return (
    <form className="graph-find" role="search" onSubmit={go}>
      <input
        type="search"
        list="graph-find-list"
        value={query}
        placeholder="Find pod, workload, Service, namespace"
        aria-label="Find a pod, workload, Service or namespace in the graph (Enter goes to it)"
        onChange={(e) => setQuery(e.target.value)}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
        data-testid="graph-find"
      />
      <datalist id="graph-find-list">
        {matches.map((m) => (
          <option key={`${m.kind} ${m.name}`} value={`${m.kind} ${m.name}`} />
        ))}
      </datalist>
      <span className="sr-only" role="status">
        {status}
      </span>
    </form>
  );
}
