/**
 * Plain JSON values -> block YAML, for the objects ktl writes (the
 * suggested policies, the hypotheses' what-if objects). A string is written
 * plain only when YAML 1.1 (what kubectl's decoder reads) cannot take it for
 * anything else: no booleans (`yes`, `on`, `n`), nulls, numbers or
 * indicators; every other string is double-quoted JSON, which is valid YAML.
 */

const AMBIGUOUS = /^(y|yes|n|no|true|false|on|off|null|~)$/i;

function scalar(v: unknown): string {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v === null || v === undefined) return "null";
  const s = String(v);
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(s) && !AMBIGUOUS.test(s) ? s : JSON.stringify(s);
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function lines(v: unknown, indent: string): string[] {
  if (Array.isArray(v)) {
    if (v.length === 0) return [`${indent}[]`];
    return v.flatMap((item) => {
      const inner =
        isMap(item) || Array.isArray(item) ? lines(item, `${indent}  `) : [`${indent}  ${scalar(item)}`];
      if (inner.length === 0) return [`${indent}- {}`];
      // The first line of the item goes after the dash.
      return [`${indent}- ${inner[0]!.slice(indent.length + 2)}`, ...inner.slice(1)];
    });
  }
  if (isMap(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    return keys.flatMap((k) => {
      const val = v[k];
      const key = scalar(k);
      if (isMap(val) && Object.keys(val).length === 0) return [`${indent}${key}: {}`];
      if (Array.isArray(val) && val.length === 0) return [`${indent}${key}: []`];
      if (isMap(val)) return [`${indent}${key}:`, ...lines(val, `${indent}  `)];
      if (Array.isArray(val)) return [`${indent}${key}:`, ...lines(val, indent)];
      return [`${indent}${key}: ${scalar(val)}`];
    });
  }
  return [`${indent}${scalar(v)}`];
}

/** One YAML document (no `---`). */
export function toYaml(v: unknown): string {
  return lines(v, "").join("\n") + "\n";
}

/** Several documents separated by `---`, each with an optional comment above it. */
export function yamlDocuments(docs: readonly { comment?: string; value: unknown }[]): string {
  return docs
    .map(
      (d) =>
        (d.comment
          ? d.comment
              .split("\n")
              .map((l) => `# ${l}`.trimEnd())
              .join("\n") + "\n"
          : "") + toYaml(d.value),
    )
    .join("---\n");
}

/** The input's text, kept byte for byte, and new documents after it. */
export function appendYaml(text: string, yaml: string): string {
  const sep = text.length === 0 || text.endsWith("\n") ? "" : "\n";
  return `${text}${sep}---\n${yaml}`;
}
