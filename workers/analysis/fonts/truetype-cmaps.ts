// The encoding subtables (platform, encoding) of an embedded TrueType
// program's 'cmap' table (OpenType spec, "cmap"): what 7.21.6-1 and -4 ask
// of a TrueType font. Read with the one table-directory reader; a program
// that cannot be read answers undefined (the rules then have nothing to
// say about its cmap, as veraPDF's TrueTypeFontProgram is absent).
import { tableDirectory, viewOf } from '../../untrusted/sfnt-directory.js';

export function cmapSubtables(bytes: Uint8Array): { platform: number; encoding: number }[] | undefined {
  try {
    const cmap = tableDirectory(bytes, 0, 'the embedded font').get('cmap');
    if (cmap === undefined) return [];
    const view = viewOf(bytes);
    if (cmap.length < 4) return [];
    const count = view.getUint16(cmap.offset + 2);
    const subtables: { platform: number; encoding: number }[] = [];
    for (let i = 0; i < count && 4 + 8 * (i + 1) <= cmap.length; i++) {
      subtables.push({ platform: view.getUint16(cmap.offset + 4 + 8 * i), encoding: view.getUint16(cmap.offset + 6 + 8 * i) });
    }
    return subtables;
  } catch {
    return undefined;
  }
}
