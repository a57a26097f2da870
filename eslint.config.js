import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

const engineWhy =
  "src/engine must stay pure: it runs in Node behind bin/ktl and in a Web Worker, so it may not import UI code.";
const domWhy =
  "src/engine runs in Node and in a Worker: there is no DOM there. Pass data in, return plain data out.";

const layerWhy =
  "src/engine imports downward only (ARCHITECTURE.md, import direction): parse <- model <- decisions <- load <- trace <- l7/flows <- views <- analysis; the public API (src/engine/index.ts) is for front ends.";
const UI_PATHS = [
  "react",
  "react-dom",
  "zustand",
  "@xyflow/react",
  "monaco-editor",
  "monaco-yaml",
  "elkjs",
].map((name) => ({ name, message: engineWhy }));
const UI_PATTERN = {
  group: ["**/components/**", "**/store/**", "**/app/**", "**/graph/**", "node:*"],
  message: engineWhy,
};
/** src/engine folders from the bottom layer up; folders of one layer may import each other. */
const ENGINE_LAYERS = [
  ["parse"],
  ["model", "http"],
  ["netpol", "tiers", "policy", "cni", "proxy"],
  ["decide"],
  ["load"],
  ["trace"],
  ["l7", "flows"],
  ["dataplane", "connlist", "validate", "expect", "diff", "whatif", "observe"],
  ["analysis"],
  ["testing"],
];

export default tseslint.config(
  {
    ignores: [
      "dist/",
      "lib/",
      "node_modules/",
      ".cache/",
      "test-results/",
      "playwright-report/",
      "bin/*.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Typed lint: a switch over a union (a trace step, a cause's layer, a diagnostic code) that misses a
    // member fails, so a new layer or step that nobody renders fails the build (trace/render.ts).
    files: ["src/**/*.tsx", "src/**/*.ts"],
    ignores: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { allowDefaultCaseForExhaustiveSwitch: true, considerDefaultExhaustiveForUnions: true },
      ],
    },
  },
  {
    // A first Intl call loads ICU's locale data: 25 to 35 ms on the page's main thread in Chromium, 60 to 100 ms
    // in a worker, on the first answer's path (bench/notes.md). Counts are grouped by `thousands` (trace/format.ts).
    files: ["src/**/*.tsx", "src/**/*.ts"],
    ignores: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='toLocaleString']",
          message:
            "Group digits with thousands() from src/engine/trace/format.ts: a first Intl call loads ICU.",
        },
        {
          selector: "MemberExpression[object.name='Intl']",
          message: "A first Intl call loads ICU's locale data on the first answer's path; format without it.",
        },
      ],
    },
  },
  {
    files: ["src/**/*.tsx", "src/**/*.ts"],
    ignores: ["src/engine/**"],
    plugins: { "react-hooks": reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    files: ["src/engine/**/*.ts"],
    ignores: ["src/engine/**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: UI_PATHS, patterns: [UI_PATTERN] }],
      "no-restricted-globals": [
        "error",
        ...["window", "document", "localStorage", "sessionStorage", "fetch", "navigator", "location"].map(
          (name) => ({
            name,
            message: domWhy,
          }),
        ),
      ],
    },
  },
  // The direction inside the engine (ARCHITECTURE.md, "Import direction"): a folder imports its own
  // layer and the ones below it, never one above. Types may flow up (allowTypeImports): a model field
  // may name a higher layer's parsed objects without a runtime edge. Tests and fixtures are exempt.
  ...ENGINE_LAYERS.map((layer, rank) => ({
    files: layer.map((folder) => `src/engine/${folder}/**/*.ts`),
    ignores: ["src/engine/**/*.test.ts", "src/engine/**/test-fixtures.ts", "src/engine/**/testkit.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: UI_PATHS,
          patterns: [
            UI_PATTERN,
            {
              regex: `^(\\.\\./)+(${ENGINE_LAYERS.slice(rank + 1)
                .flat()
                .join("|")})/`,
              allowTypeImports: true,
              message: layerWhy,
            },
            { regex: "^\\.\\.(/\\.\\.)*/?(index(\\.ts)?)?$", message: layerWhy },
          ],
        },
      ],
    },
  })),
  {
    // The graph maps engine results to drawing data: it reads no store (types only).
    files: ["src/graph/**/*.ts", "src/graph/**/*.tsx"],
    ignores: ["src/graph/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+store/",
              allowTypeImports: true,
              message: "src/graph is pure mapping: take the store's values as arguments.",
            },
            {
              regex: "^(\\.\\./)+(app|components)/",
              message:
                "src/graph is pure mapping: it is drawn by components, and imports none of them (nor app/).",
            },
          ],
        },
      ],
    },
  },
  {
    // Components never import app/: app/ composes them (App.tsx, start.ts), so an import back is a cycle
    // in waiting. What both need (the first-draw promise) lives in store/ or beside the component.
    files: ["src/components/**/*.ts", "src/components/**/*.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+app/",
              message:
                "src/components never import src/app: move what both need to src/store or beside the component.",
            },
          ],
        },
      ],
    },
  },
);
