// ESLint for the extension and its node tests, run from the repository root (scripts/test:
// tests/js/node_modules/.bin/eslint -c tests/js/eslint.config.js extension tests/js): the recommended rules, which catch mistakes
// (undefined names, unused variables, unreachable code); formatting is left alone.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["tests/js/node_modules/**", "extension/vendor/**"] },
  js.configs.recommended,
  {
    // content scripts, the side panel and the service worker are classic scripts sharing globalThis.SC
    files: ["extension/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: {
        ...globals.browser,
        ...globals.webextensions,
        ...globals.serviceworker,
        SC: "writable",
        // lib/*.js also export themselves to the node tests, behind `typeof module !== "undefined"`
        module: "readonly",
        require: "readonly",
      },
    },
    rules: { "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }] },
  },
  { files: ["extension/viewer/viewer.js"], languageOptions: { sourceType: "module" } },
  {
    files: ["tests/js/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
    rules: { "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }] },
  },
];
