/**
 * Namespace families: when folded namespaces alone do not fit the pane, the
 * paths lens folds namespaces further into one element per family. A family
 * is either the part of the name before the first dash (`billing-dev`,
 * `billing-prod`: `billing-*`) or the value of a namespace label
 * (`team=billing`), which says what the name only suggests. "auto" takes a
 * label that names an owner (`team`, `owner`, `tenant`, ...) when the
 * namespaces carry one that groups them, else the name prefix. Pure.
 */

/** The View option: "auto", "prefix", or "label:KEY". */
export type NsGroupBy = "auto" | "prefix" | `label:${string}`;

export type NsGrouping = { by: "prefix" } | { by: "label"; key: string };

export interface NsLabels {
  name: string;
  labels: Record<string, string>;
}

/** Set by the API server on every namespace (one value each): it never groups. */
export const NS_NAME_LABEL = "kubernetes.io/metadata.name";

/** Keys that name who owns a namespace, in the order "auto" prefers them. */
export const OWNER_KEYS = ["team", "owner", "tenant", "project", "app.kubernetes.io/part-of"] as const;

/** The prefix a namespace shares with its siblings: its name up to the first dash. */
export const nsPrefix = (ns: string) => (ns.includes("-") ? ns.slice(0, ns.indexOf("-")) : ns);

/** How many families of two or more namespaces a label key makes. */
function familiesBy(namespaces: readonly NsLabels[], key: string): number {
  const count = new Map<string, number>();
  for (const ns of namespaces) {
    const v = ns.labels[key];
    if (v !== undefined) count.set(v, (count.get(v) ?? 0) + 1);
  }
  let n = 0;
  for (const c of count.values()) if (c > 1) n++;
  return n;
}

/**
 * Label keys that can fold namespaces (some value shared by two or more of them), for the View option:
 * owner keys first (in OWNER_KEYS order), then the keys making the most families, then by name.
 */
export function groupingKeys(namespaces: readonly NsLabels[]): string[] {
  const keys = new Set<string>();
  for (const ns of namespaces) for (const k of Object.keys(ns.labels)) if (k !== NS_NAME_LABEL) keys.add(k);
  const owner = (k: string) => {
    const i = (OWNER_KEYS as readonly string[]).indexOf(k);
    return i < 0 ? OWNER_KEYS.length : i;
  };
  const families = new Map([...keys].map((k) => [k, familiesBy(namespaces, k)]));
  return [...keys]
    .filter((k) => families.get(k)! > 0)
    .sort(
      (a, b) => owner(a) - owner(b) || families.get(b)! - families.get(a)! || (a < b ? -1 : a > b ? 1 : 0),
    );
}

/** What "auto" and the other choices mean for these namespaces. */
export function resolveNsGrouping(
  choice: NsGroupBy | undefined,
  namespaces: readonly NsLabels[],
): NsGrouping {
  if (choice === "prefix") return { by: "prefix" };
  if (choice?.startsWith("label:")) return { by: "label", key: choice.slice("label:".length) };
  // auto: an owner key that makes at least two families (one family of everything tells nothing).
  for (const key of OWNER_KEYS) if (familiesBy(namespaces, key) >= 2) return { by: "label", key };
  return { by: "prefix" };
}

/** The family a namespace belongs to (its key in fold keys and element ids), or undefined when it has none. */
export function nsFamily(
  ns: string,
  labels: Record<string, string> | undefined,
  g: NsGrouping,
): string | undefined {
  if (g.by === "prefix") return nsPrefix(ns);
  const v = labels?.[g.key];
  return v === undefined ? undefined : `${g.key}=${v}`;
}

/**
 * A family element's title: `billing-*` for a name prefix, the label's value (`billing`) for a label: the key is
 * in the View option above the graph, and `team=` would take the room the shortened name needs.
 */
export const familyTitle = (family: string) =>
  family.includes("=") ? family.slice(family.indexOf("=") + 1) : `${family}-*`;

/** The family of every namespace, for the paths lens and Find alike. */
export function familyResolver(
  a: { namespaces: readonly NsLabels[] },
  choice: NsGroupBy | undefined,
): (ns: string) => string | undefined {
  const g = resolveNsGrouping(choice, a.namespaces);
  const labels = new Map(a.namespaces.map((n) => [n.name, n.labels]));
  return (ns) => nsFamily(ns, labels.get(ns), g);
}
