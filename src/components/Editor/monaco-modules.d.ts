/** Monaco's ESM entry points that the package's types do not describe: the editor core without the bundled languages. */
declare module "monaco-editor/esm/vs/editor/edcore.main.js" {
  export * from "monaco-editor";
}
declare module "monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js";
declare module "monaco-yaml/yaml.worker.js";
