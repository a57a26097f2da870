import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

const engineWhy =
  "src/engine must stay pure: it runs in Node behind bin/ktl and in a Web Worker, so it may not import UI code.";
const domWhy =
  "src/engine runs in Node and in a Worker: there is no DOM there. Pass data in, return plain data out.";

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
    files: ["src/**/*.tsx", "src/**/*.ts"],
    ignores: ["src/engine/**"],
    plugins: { "react-hooks": reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    files: ["src/engine/**/*.ts"],
    ignores: ["src/engine/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            "react",
            "react-dom",
            "zustand",
            "@xyflow/react",
            "monaco-editor",
            "monaco-yaml",
            "elkjs",
          ].map((name) => ({
            name,
            message: engineWhy,
          })),
          patterns: [
            {
              group: ["**/components/**", "**/store/**", "**/app/**", "**/graph/**", "node:*"],
              message: engineWhy,
            },
          ],
        },
      ],
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
);
