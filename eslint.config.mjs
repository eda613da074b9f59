// TypeScript lint for the browser side (`make lint`); formatting is prettier's job.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/**", "node_modules/**", ".venv/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      // Control characters in regexes are how path and file-name rules refuse them.
      "no-control-regex": "off",
    },
  },
  // Build scripts run under Node; the browser tests' pages run in a page or a worker.
  { files: ["**/*.mjs", "scripts/**/*.js"], languageOptions: { globals: globals.node } },
  {
    files: ["tests/browser/pages/**/*.js"],
    languageOptions: { globals: { ...globals.browser, ...globals.worker, crossOriginIsolated: "readonly" } },
  },
  // The page the Python client drives in its headless browser.
  { files: ["wasm_runtime/client/**/*.js"], languageOptions: { globals: globals.browser } },
);
