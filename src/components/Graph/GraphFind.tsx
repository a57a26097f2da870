import { useMemo, useState } from "react";
import { useApp, useSettledResult } from "../../store/StoreProvider.tsx";
import { findMatches, searchIndex, type Match } from "../../graph/search.ts";

/** Find a pod, workload, Service or namespace: opens what folds it, then the canvas centres and selects it. */
export function GraphFind({ onFind }: { onFind: (m: Match) => void }) {
  const result = useSettledResult();
  const nsGroupBy = useApp((s) => s.nsGroupBy);
  const index = useMemo(() => (result ? searchIndex(result, nsGroupBy) : []), [result, nsGroupBy]);
  const [query, setQuery] = useState("");
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
