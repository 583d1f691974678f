// Fonts a client registered once (PUT /api/v1/fonts/{family}), as a render
// finds them: the main thread sends family → path of the checked sfnt file
// (named by its SHA-256, so a path always holds the same bytes); the bytes
// are read once per worker and kept by path. Keeping the same bytes object
// lets the PDF seam find its parse of the font without hashing it again
// (workers/seams/fonts-parse.ts, parsedByBytes), which is what keeps a
// letter in a registered font near the standard letter's cost.
import { readFile } from 'node:fs/promises';
import { BoundedMap } from '../util/bounded-map.js';

/** As the seam's cache of parsed fonts: a registered font is at most PLATEN_MAX_FONT_BYTES (32 MB by default). */
const KEPT_MAX = 64;
const KEPT_MAX_BYTES = 128 * 1024 * 1024;
const kept = new BoundedMap<string, Uint8Array>(KEPT_MAX, KEPT_MAX_BYTES, (_path, bytes) => bytes.byteLength);

/** The registered font's bytes, or undefined when the family is not registered (or was removed since). */
export async function registeredFont(fonts: Readonly<Record<string, string>> | undefined, family: string): Promise<Uint8Array | undefined> {
  // A family is client text: only the map's own keys count ("constructor" is not a font).
  if (fonts === undefined || !Object.hasOwn(fonts, family)) return undefined;
  const path = fonts[family] as string;
  let bytes = kept.get(path);
  if (bytes === undefined) {
    try {
      bytes = new Uint8Array(await readFile(path));
    } catch (error) {
      // Removed between the list the main thread sent and this read: the family is gone.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    kept.set(path, bytes);
  }
  return bytes;
}
