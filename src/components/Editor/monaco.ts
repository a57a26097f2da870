/**
 * Monaco, bundled from the monaco-editor package (no CDN), with YAML only:
 * the editor core, the YAML tokenizer, and monaco-yaml with the project's
 * schemas. Loaded lazily by EditorPane, so the first paint never waits for it.
 */
import * as monaco from "monaco-editor/esm/vs/editor/edcore.main.js";
import "monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js";
// @ts-expect-error: the YAML tokenizer's module has no type declarations (its contribution does).
import { conf as yamlConf, language as yamlTokens } from "monaco-editor/esm/vs/basic-languages/yaml/yaml.js";
import { configureMonacoYaml } from "monaco-yaml";
import EditorWorker from "monaco-editor/esm/vs/editor/editor.worker.js?worker";
import YamlWorker from "./yaml.worker.ts?worker";
import { KUBERNETES_SCHEMA, SCHEMA_URI } from "./schemas.ts";

self.MonacoEnvironment = {
  getWorker(_moduleId: string, label: string) {
    return label === "yaml" ? new YamlWorker() : new EditorWorker();
  },
};

configureMonacoYaml(monaco, {
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
 * A model too large for monaco-yaml's worker gets this language: the same
 * YAML colouring (Monaco's tokenizer), none of monaco-yaml's services. Its
 * worker re-reads the whole document on every change for links, code lenses
 * and symbols even with validation off: at 10,000 pods (7.7 MB) its heap grew
 * by about 400 MB per edit until the tab crashed (bench, CDP heap usage per
 * worker). The engine's own diagnostics still report every problem.
 */
export const LARGE_YAML = "yaml-large";
monaco.languages.register({ id: LARGE_YAML, aliases: ["YAML"] });
monaco.languages.setMonarchTokensProvider(LARGE_YAML, yamlTokens as monaco.languages.IMonarchLanguage);
monaco.languages.setLanguageConfiguration(LARGE_YAML, yamlConf as monaco.languages.LanguageConfiguration);

/** monaco-yaml's services (schemas, hover, completion, markers) for a model, or the plain YAML language. */
export function yamlServices(model: monaco.editor.ITextModel, on: boolean): void {
  const id = on ? "yaml" : LARGE_YAML;
  if (model.getLanguageId() !== id) monaco.editor.setModelLanguage(model, id);
}

export { monaco };
export type Monaco = typeof monaco;
