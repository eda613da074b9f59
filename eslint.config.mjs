// TypeScript lint for the browser side (`make lint`); formatting is prettier's job.
import js from "@eslint/js";
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
);
