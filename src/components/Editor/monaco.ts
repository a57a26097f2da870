/**
 * Monaco, bundled from the monaco-editor package (no CDN), with YAML only:
 * the editor core, the YAML tokenizer, and monaco-yaml with the project's
 * schemas. Loaded lazily by EditorPane, so the first paint never waits for it.
 */
import * as monaco from "monaco-editor/esm/vs/editor/edcore.main.js";
import "monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js";
import { configureMonacoYaml } from "monaco-yaml";
import EditorWorker from "monaco-editor/esm/vs/editor/editor.worker.js?worker";
import YamlWorker from "./yaml.worker.ts?worker";
import { KUBERNETES_SCHEMA, SCHEMA_URI } from "./schemas.ts";

self.MonacoEnvironment = {
  getWorker(_moduleId: string, label: string) {
    return label === "yaml" ? new YamlWorker() : new EditorWorker();
  },
};

const yaml = configureMonacoYaml(monaco, {
  enableSchemaRequest: false,
  hover: true,
  completion: true,
  validate: true,
  format: { enable: false },
  isKubernetes: true,
  schemas: [
    { uri: SCHEMA_URI, fileMatch: ["**/*.yaml", "**/*.yml", "*"], schema: KUBERNETES_SCHEMA as never },
  ],
});

/**
 * Schema validation re-reads the whole document in monaco-yaml's worker on
 * every change and sends its markers back; for very large inputs the
 * engine's own diagnostics are enough, so it is switched off there.
 */
let validating = true;
export function validateWithSchemas(on: boolean): void {
  if (on === validating) return;
  validating = on;
  void yaml.update({ validate: on });
}

export { monaco };
export type Monaco = typeof monaco;
