/**
 * metav1.LabelSelector: matchLabels AND matchExpressions (In, NotIn, Exists,
 * DoesNotExist), as in k8s.io/apimachinery/pkg/apis/meta/v1
 * LabelSelectorAsSelector. An empty selector matches everything; a null
 * (absent) selector matches nothing where the API says so (callers decide).
 */
import { arr, isObj, str, strList, strMap } from "../parse/values.ts";

export type SelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

export interface SelectorRequirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

export interface LabelSelector {
  matchLabels: Record<string, string>;
  matchExpressions: SelectorRequirement[];
  /** Canonical text, equal for equal selectors: the cache key for resolution. */
  key: string;
  /** Set when the selector is malformed (unknown operator): it then matches nothing. */
  invalid?: string;
}

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

/** A selector from its object; equal ones as written are one (frozen in spirit: nothing may change it). */
export function parseLabelSelector(v: unknown): LabelSelector {
  // Most selectors were seen before: their written form is looked up before anything is built.
  const written = writtenForm(v);
  const hit = interned.get(written);
  if (hit) return hit;
  const matchLabels = isObj(v) ? strMap(v.matchLabels) : {};
  const matchExpressions: SelectorRequirement[] = [];
  let invalid: string | undefined;
  if (isObj(v)) {
    for (const e of arr(v.matchExpressions)) {
      if (!isObj(e)) continue;
      const op = str(e.operator) ?? "";
      if (!OPERATORS.has(op)) {
        invalid = `"${op}" is not a valid label selector operator`;
        continue;
      }
      matchExpressions.push({
        key: str(e.key) ?? "",
        operator: op as SelectorOperator,
        values: strList(e.values),
      });
    }
  }
  const parts = [
    ...Object.keys(matchLabels)
      .sort()
      .map((k) => `${k}=${matchLabels[k]}`),
    ...matchExpressions.map((e) => `${e.key} ${e.operator} (${[...e.values].sort().join(",")})`).sort(),
  ];
  const sel: LabelSelector = {
    matchLabels,
    matchExpressions,
    key: invalid ? `!invalid:${invalid}` : parts.join(";"),
  };
  if (invalid) sel.invalid = invalid;
  if (interned.size >= INTERNED_MAX) interned.clear();
  interned.set(written, sel);
  return sel;
}

/** A text of one piece: its length, then the piece (no two lists of pieces make the same text). */
function piece(t: string): string {
  return `${t.length}:${t}`;
}

/** What parseLabelSelector reads of `v` as text, in order: equal texts make equal selectors. */
function writtenForm(v: unknown): string {
  if (!isObj(v)) return "LE";
  let out = "L";
  const labels = v.matchLabels;
  if (isObj(labels))
    for (const k in labels) {
      const val = labels[k];
      if (typeof val === "string" || typeof val === "number" || typeof val === "boolean")
        out += piece(k) + piece(String(val));
    }
  out += "E";
  for (const e of arr(v.matchExpressions)) {
    if (!isObj(e)) continue;
    out += `(${piece(typeof e.key === "string" ? e.key : "")}${piece(typeof e.operator === "string" ? e.operator : "")}`;
    for (const x of strList(e.values)) out += piece(x);
    out += ")";
  }
  return out;
}

/**
 * Selectors parsed before, by their written form (the same labels and requirements in the same order): a cluster's policies repeat
 * a few selectors thousands of times (every namespace's default-deny `{}`,
 * the DNS peer), and a selector is never changed once parsed, so equal ones
 * share one object (XL: 200,000 selectors, 70 MB, in a few hundred objects).
 * Bounded: a long editing session starts over past the limit.
 */
const interned = new Map<string, LabelSelector>();
const INTERNED_MAX = 50_000;

export function isEmptySelector(s: LabelSelector): boolean {
  return !s.invalid && s.key === "";
}

export function matchesSelector(s: LabelSelector, labels: Record<string, string>): boolean {
  if (s.invalid) return false;
  for (const k in s.matchLabels) if (labels[k] !== s.matchLabels[k]) return false;
  for (const e of s.matchExpressions) {
    const has = Object.hasOwn(labels, e.key);
    switch (e.operator) {
      case "In":
        if (!has || !e.values.includes(labels[e.key]!)) return false;
        break;
      case "NotIn":
        if (has && e.values.includes(labels[e.key]!)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
    }
  }
  return true;
}

/** Human-readable selector, as kubectl describe prints it. */
export function formatSelector(s: LabelSelector): string {
  if (s.invalid) return `<invalid: ${s.invalid}>`;
  const parts = [
    ...Object.entries(s.matchLabels).map(([k, v]) => `${k}=${v}`),
    ...s.matchExpressions.map((e) =>
      e.operator === "Exists"
        ? e.key
        : e.operator === "DoesNotExist"
          ? `!${e.key}`
          : `${e.key} ${e.operator.toLowerCase()} (${e.values.join(",")})`,
    ),
  ];
  return parts.length ? parts.join(",") : "<all>";
}

/** A canonical key for a label set, so pods with identical labels share selector work. */
export function labelsKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join("\n");
}

/** The requirements of a selector one object's labels fail, each worded as what it asks and what the object has. */
export function failedRequirements(sel: LabelSelector, labels: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels)) {
    if (labels[k] === v) continue;
    const same = Object.keys(labels).find((o) => labels[o] === v);
    out.push(
      k in labels
        ? `\`${k}=${v}\`; it has \`${k}=${labels[k]}\`${same !== undefined ? ` (and \`${same}=${v}\`)` : ""}`
        : same !== undefined
          ? `\`${k}=${v}\`; it has no label \`${k}\` but has \`${same}=${v}\``
          : `\`${k}=${v}\`; it has no label \`${k}\``,
    );
  }
  for (const e of sel.matchExpressions) {
    const has = Object.hasOwn(labels, e.key);
    const got = has ? `it has \`${e.key}=${labels[e.key]}\`` : `it has no label \`${e.key}\``;
    const ok =
      e.operator === "In"
        ? has && e.values.includes(labels[e.key]!)
        : e.operator === "NotIn"
          ? !(has && e.values.includes(labels[e.key]!))
          : e.operator === "Exists"
            ? has
            : !has;
    if (!ok) out.push(`\`${formatSelector({ matchLabels: {}, matchExpressions: [e], key: "" })}\`; ${got}`);
  }
  return out;
}
