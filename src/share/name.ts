/**
 * The name of what the editor holds, for the scenario menu and the export
 * file names: the catalogue scenario it came from while most of its lines are
 * still the scenario's; otherwise a name of its own, from the namespaces its
 * objects live in ("payments, web"), or "Untitled".
 */
import { scenarioById } from "../../scenarios/index.ts";

export interface ScenarioName {
  /** The catalogue scenario the text still is (possibly edited), else undefined. */
  scenarioId: string | undefined;
  title: string;
  /** For file names: lowercase letters, digits and dashes. */
  slug: string;
  edited: boolean;
}

const SYSTEM = new Set(["default", "kube-system", "kube-public", "kube-node-lease"]);

/** The lines that name something (`name:`, `namespace:`): boilerplate such as `kind: Pod` says nothing about which scenario a text is. */
function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim().replace(/^- /, ""))
    .filter((l) => /^(name|namespace):\s*\S/.test(l));
}

/** Share of the text's naming lines that are lines of the scenario (0..1). */
export function overlap(text: string, scenario: string): number {
  const mine = lines(text);
  if (mine.length === 0) return 0;
  const theirs = new Set(lines(scenario));
  let same = 0;
  for (const l of mine) if (theirs.has(l)) same++;
  return same / mine.length;
}

/** The namespaces the text's objects name, in order of appearance, system namespaces last. */
export function namespacesOf(text: string): string[] {
  const re = /^\s*namespace:\s*["']?([a-z0-9]([-a-z0-9]*[a-z0-9])?)["']?\s*(#.*)?$/gm;
  const ns = /^kind:\s*Namespace\s*$[\s\S]*?^\s+name:\s*["']?([a-z0-9]([-a-z0-9]*[a-z0-9])?)/gm;
  const found = [...text.matchAll(re), ...text.matchAll(ns)].sort((a, b) => a.index - b.index);
  const all = [...new Set(found.map((m) => m[1]!))];
  return [...all.filter((n) => !SYSTEM.has(n)), ...all.filter((n) => SYSTEM.has(n))];
}

export function slugOf(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "untitled"
  );
}

export function scenarioName(text: string, scenarioId: string | undefined): ScenarioName {
  const s = scenarioId ? scenarioById(scenarioId) : undefined;
  if (s && (text === s.manifests || overlap(text, s.manifests) >= 0.5)) {
    return { scenarioId: s.id, title: s.title, slug: s.id, edited: text !== s.manifests };
  }
  const ns = namespacesOf(text).filter((n) => !SYSTEM.has(n));
  const title =
    ns.length === 0
      ? "Untitled"
      : ns.length <= 3
        ? ns.join(", ")
        : `${ns.slice(0, 3).join(", ")} and ${ns.length - 3} more`;
  return { scenarioId: undefined, title, slug: slugOf(title), edited: false };
}
