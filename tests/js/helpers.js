// Shared helpers for the extension's node tests: load the extension's classic scripts and a DOM.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const require = createRequire(import.meta.url);
export const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../extension");

/** require() an extension script by its path inside extension/. */
export function load(rel) {
  return require(path.join(EXT, rel));
}

/** A jsdom window for DOM tests, with the globals the content scripts read. */
export function dom(html) {
  const { JSDOM } = require("jsdom");
  const win = new JSDOM(`<!doctype html><html><body>${html}</body></html>`).window;
  return win;
}
