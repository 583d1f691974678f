// Loads uWebSockets.js's native binding directly. The package's own entry
// (src/uws.js) silently falls back to a pure-JS server built on node:http
// when the binary fails to load, which is several times slower; we refuse to
// start instead (DESIGN.md, fixed interface).
import { createRequire } from 'node:module';
import type * as UWS from '@trufflesuite/uws-js-unofficial';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

const PACKAGE = '@trufflesuite/uws-js-unofficial';

/** Exported for the test that proves a missing binary stops start-up instead of falling back. */
export function loadNativeBinding(abi: string = process.versions.modules): typeof UWS {
  const require = createRequire(import.meta.url);
  const binary = `${PACKAGE}/binaries/uws_${process.platform}_${process.arch}_${abi}.node`;
  try {
    return require(binary) as typeof UWS;
  } catch (error) {
    throw new Error(
      `cannot load the native uWebSockets.js binding (${binary}) on Node ${process.version} ` +
        `(${process.platform}/${process.arch}, ABI ${abi}): ${(error as Error).message}. ` +
        'Platen does not run on the slow JavaScript fallback; use Node 20 on Linux x64 with glibc >= 2.27.',
    );
  }
}

export const uws = loadNativeBinding();
// Without it, every response carries "uWebSockets: 20", naming the server and its major version to anyone
// (OWASP: do not fingerprint the stack). "silent" clears the loop's write mark (uWS Loop::setSilent), process-wide;
// test/pipeline.test.ts fails if an upgrade brings the header back.
uws._cfg('silent');
