/**
 * Whether monaco-yaml's worker may read a text (issue 31). yaml-language-server resolves aliases by recursion:
 * an alias inside the collection it names (`data: &a {x: *a}`) overflows its stack in validation, document
 * links and definitions on every edit, each a "Maximum call stack size exceeded" in the console. The engine's
 * YAML reader already refuses such a doc (KTL105, like go-yaml's "anchor value contains itself"; also alias
 * bombs and nesting past its depth limit, KTL101): such a text gets the plain YAML language instead, as a large
 * one does, and the problems panel still names the doc.
 */
import { parseYamlFile } from "../../engine/parse/yaml.ts";

const ANCHOR = /&([^\s,[\]{}]+)/g;
const ALIAS = /\*([^\s,[\]{}]+)/g;

let last: { text: string; safe: boolean } | undefined;

export function yamlServiceSafe(text: string): boolean {
  if (last?.text === text) return last.safe;
  let safe = true;
  // Most texts have no alias that names an anchor: no parse on the main thread for them.
  const anchors = new Set([...text.matchAll(ANCHOR)].map((m) => m[1]));
  if (anchors.size && [...text.matchAll(ALIAS)].some((m) => anchors.has(m[1]))) {
    const refused = parseYamlFile("editor", text).diagnostics.some(
      (d) => d.code === "KTL105" || (d.code === "KTL101" && /nesting too deep/.test(d.message)),
    );
    safe = !refused;
  }
  last = { text, safe };
  return safe;
}
