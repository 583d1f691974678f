// Gives a WebAssembly module a memory of another size, by rewriting its
// memory section (WebAssembly core spec 5.5.8; limits are 5.3.5).
//
// harfbuzzjs 1.6.4 builds hb-subset with a fixed memory: min = max = 1040
// pages (65 MiB), no growth. Subsetting a 19 MB CJK collection to all its
// code points fails in that heap (hb_subset_or_fail returns null), and a
// font near PLATEN_MAX_FONT_BYTES would not even fit. Emscripten's sbrk
// asks the memory for its size at run time (emscripten_get_heap_size is
// memory.size × 64 KiB), so a module whose memory starts larger simply has
// a larger heap. Measured here: with 8192 pages the same CJK subset succeeds.
// The memory stays fixed-size (min = max), so typed-array views into it are
// never detached. Pages the heap never touches cost address space, not RSS.

const MEMORY_SECTION = 5;
export const WASM_PAGE = 65_536;
/** wasm32 addresses 4 GiB at most. */
export const MAX_PAGES = 65_536;

/** Pages for a heap of at least `bytes`, within wasm32's range. */
export function pagesFor(bytes: number): number {
  return Math.min(MAX_PAGES, Math.ceil(bytes / WASM_PAGE));
}

/**
 * A copy of `module` whose single defined memory has `pages` pages (min =
 * max), never fewer than the module asked for. Throws when the module
 * defines no memory (it would import one, which this does not handle).
 */
export function withMemoryPages(module: Uint8Array, pages: number): Uint8Array {
  if (module.byteLength < 8 || readU32(module, 0) !== 0x6d736100) throw new Error('not a WebAssembly module');
  let at = 8;
  while (at < module.byteLength) {
    const start = at;
    const id = module[at++] as number;
    const [size, body] = readLeb(module, at);
    if (id === MEMORY_SECTION) {
      const [count, limitsAt] = readLeb(module, body);
      if (count !== 1) throw new Error(`expected one memory, found ${count}`);
      const [declared] = readLeb(module, limitsAt + 1);
      const limit = leb(Math.max(pages, declared));
      // flags 0x01: both minimum and maximum present.
      const section = [1, 0x01, ...limit, ...limit];
      const head = [MEMORY_SECTION, ...leb(section.length)];
      const out = new Uint8Array(start + head.length + section.length + (module.byteLength - (body + size)));
      out.set(module.subarray(0, start), 0);
      out.set(head, start);
      out.set(section, start + head.length);
      out.set(module.subarray(body + size), start + head.length + section.length);
      return out;
    }
    at = body + size;
  }
  throw new Error('the module defines no memory');
}

function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;
}

/** An unsigned LEB128 at `at`: [value, offset after it]. */
function readLeb(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    if (at >= bytes.byteLength || shift > 28) throw new Error('malformed LEB128 in the module');
    byte = bytes[at++] as number;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}
