// Built-ins as they were before pdf.js loaded, put back once it has.
// pdfjs-dist's legacy build bundles core-js, which replaces built-ins of the
// whole thread when the engine lacks a newer feature, even one nothing here
// uses: on Node 20 it replaces JSON.stringify (no JSON.rawJSON), JSON.parse
// (no parse-with-source) and Array.prototype.push (a length edge case) with
// JavaScript versions. Every task in a worker then paid for them: the
// stringify wrapper re-reads its whole output a character at a time, 10.7
// against 0.57 ms for an image-compress answer (a 107 KB base64 string),
// and ~7 MB of short-lived strings a call, a scavenge every other request;
// 200,000 pushes took 31.6 against 8.0 ms (issue 14). pdf.js itself needs
// none of the three (it runs on the natives in the modern build).
// Imported by pdfjs.ts before pdfjs-dist, so it is evaluated first.
const natives = {
  stringify: JSON.stringify,
  parse: JSON.parse,
  push: Array.prototype.push,
};

/** Puts back what pdf.js's bundled polyfills replaced; returns the names it put back. */
export function restoreNatives(): string[] {
  const restored: string[] = [];
  if (JSON.stringify !== natives.stringify) {
    JSON.stringify = natives.stringify;
    restored.push('JSON.stringify');
  }
  if (JSON.parse !== natives.parse) {
    JSON.parse = natives.parse;
    restored.push('JSON.parse');
  }
  if (Array.prototype.push !== natives.push) {
    // The same property attributes as the built-in's: writable, configurable, not enumerable.
    Object.defineProperty(Array.prototype, 'push', { value: natives.push, writable: true, configurable: true, enumerable: false });
    restored.push('Array.prototype.push');
  }
  return restored;
}
