// HarfBuzz's subsetter (hb-subset, the reference implementation) through
// the WebAssembly exports of harfbuzzjs: its JavaScript API wraps shaping
// only, so the C API is called directly (hb-blob.h, hb-face.h, hb-subset.h).
// Nothing else in the project touches this module's memory.
//
// One instance per worker thread, compiled once. Fonts copied into its
// memory stay there, keyed by content hash, within a byte budget: copying a
// 19 MB CJK collection in costs ~17 ms and HarfBuzz's first pass over a
// fresh face another ~3 ms, more than the subset itself (measured on
// NotoSansCJK-Regular.ttc, 20 code points: 12.9 ms cold, 9.8 ms warm).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BoundedMap } from '../util/bounded-map.js';
import { WASM_PAGE, pagesFor, withMemoryPages } from './wasm-memory.js';

/** hb-subset.h, hb_subset_flags_t. */
export const FLAGS = {
  NO_HINTING: 0x1,
  DESUBROUTINIZE: 0x4,
} as const;

/** hb-subset.h, hb_subset_sets_t. */
const SETS_DROP_TABLE_TAG = 3;
/** hb-blob.h, hb_memory_mode_t: HarfBuzz may sanitize our copy in place instead of duplicating it. */
const MEMORY_MODE_WRITABLE = 2;

/** Fonts kept in the WebAssembly heap between requests (their bytes, summed). */
export const FONT_CACHE_BYTES = 64 * 1024 * 1024;
const FONT_CACHE_ENTRIES = 32;
/**
 * Heap for the work of one subset, per byte of the largest font accepted.
 * Measured: NotoSansCJK-Regular.ttc (19 MB) subset to every code point, CFF
 * subroutines kept, fails in a 256 MiB heap and succeeds in 512 MiB.
 */
const WORK_PER_FONT_BYTE = 12;
const BASE_HEAP_BYTES = 32 * 1024 * 1024;

// @types/node 20 declares no WebAssembly namespace (it comes with lib
// "dom"); the little used here is typed locally.
type WasmModule = object;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  readonly Instance: new (module: WasmModule, imports: object) => { readonly exports: object };
}
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: WasmApi };

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer };
  malloc(size: number): number;
  free(ptr: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, value: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_input_set(input: number, which: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_subset_or_fail(face: number, input: number): number;
  _initialize?(): void;
}

export interface SubsetSpec {
  readonly codepoints: Iterable<number>;
  /** FLAGS, or-ed. */
  readonly flags: number;
  /** Table tags to drop, e.g. GSUB. */
  readonly drop: readonly string[];
}

/** A font copied into the heap: one blob, a face per index asked for. */
interface HeapFont {
  readonly ptr: number;
  readonly length: number;
  readonly blob: number;
  readonly faces: Map<number, number>;
}

export class Subsetter {
  readonly #hb: Exports;
  readonly #fonts: BoundedMap<string, HeapFont>;
  /** Four bytes for hb_blob_get_data's length out-parameter. */
  readonly #scratch: number;
  readonly heapBytes: number;

  constructor(module: WasmModule) {
    this.#hb = new wasm.Instance(module, {}).exports as Exports;
    this.#hb._initialize?.();
    this.heapBytes = this.#hb.memory.buffer.byteLength;
    this.#scratch = this.#hb.malloc(4);
    this.#fonts = new BoundedMap<string, HeapFont>(FONT_CACHE_ENTRIES, FONT_CACHE_BYTES, (_key, font) => font.length, (_key, font) => this.#release(font));
  }

  /** The bytes of a font kept under `key`, as a view into the heap; undefined when not kept. */
  cached(key: string): Uint8Array | undefined {
    const font = this.#fonts.get(key);
    return font === undefined ? undefined : this.#view(font.ptr, font.length);
  }

  /**
   * Subsets face `index` of the font kept under `key` (copied in from
   * `bytes` first when it is not kept yet). Returns the new font's bytes,
   * or undefined when HarfBuzz fails: a font it cannot subset, or a heap too
   * small for this subset.
   */
  subset(key: string, bytes: () => Uint8Array, index: number, spec: SubsetSpec): Uint8Array | undefined {
    const hb = this.#hb;
    const font = this.#fonts.get(key) ?? this.#load(key, bytes());
    if (font === undefined) return undefined;
    try {
      let face = font.faces.get(index);
      if (face === undefined) {
        face = hb.hb_face_create(font.blob, index);
        font.faces.set(index, face);
      }
      const input = hb.hb_subset_input_create_or_fail();
      if (input === 0) return undefined;
      let result: number;
      try {
        const unicodes = hb.hb_subset_input_unicode_set(input);
        for (const codepoint of spec.codepoints) hb.hb_set_add(unicodes, codepoint);
        const drop = hb.hb_subset_input_set(input, SETS_DROP_TABLE_TAG);
        for (const tag of spec.drop) hb.hb_set_add(drop, tagValue(tag));
        hb.hb_subset_input_set_flags(input, spec.flags);
        result = hb.hb_subset_or_fail(face, input);
      } finally {
        hb.hb_subset_input_destroy(input);
      }
      if (result === 0) return undefined;
      try {
        const blob = hb.hb_face_reference_blob(result);
        const data = hb.hb_blob_get_data(blob, this.#scratch);
        const length = new DataView(hb.memory.buffer).getUint32(this.#scratch, true);
        const out = length === 0 ? undefined : this.#view(data, length).slice();
        hb.hb_blob_destroy(blob);
        return out;
      } finally {
        hb.hb_face_destroy(result);
      }
    } finally {
      // A font the cache could not keep (bigger than its budget) leaves the heap at once.
      if (this.#fonts.get(key) !== font) this.#release(font);
    }
  }

  /** Copies a font into the heap and keeps it when it fits the budget; undefined when the heap has no room for it. */
  #load(key: string, bytes: Uint8Array): HeapFont | undefined {
    const hb = this.#hb;
    const ptr = hb.malloc(bytes.byteLength);
    if (ptr === 0) return undefined;
    this.#view(ptr, bytes.byteLength).set(bytes);
    const font: HeapFont = { ptr, length: bytes.byteLength, blob: hb.hb_blob_create(ptr, bytes.byteLength, MEMORY_MODE_WRITABLE, 0, 0), faces: new Map() };
    this.#fonts.set(key, font);
    return font;
  }

  #release(font: HeapFont): void {
    for (const face of font.faces.values()) this.#hb.hb_face_destroy(face);
    font.faces.clear();
    this.#hb.hb_blob_destroy(font.blob);
    this.#hb.free(font.ptr);
  }

  #view(ptr: number, length: number): Uint8Array {
    return new Uint8Array(this.#hb.memory.buffer, ptr, length);
  }
}

function tagValue(tag: string): number {
  return ((tag.charCodeAt(0) << 24) | (tag.charCodeAt(1) << 16) | (tag.charCodeAt(2) << 8) | tag.charCodeAt(3)) >>> 0;
}

// --- the per-thread instance ---------------------------------------------

const compiled = new Map<number, Promise<WasmModule>>();
let current: Subsetter | undefined;

/** Heap size for fonts up to `maxFontBytes`: the cache, plus room to work on the largest font. */
export function heapBytesFor(maxFontBytes: number): number {
  return BASE_HEAP_BYTES + FONT_CACHE_BYTES + WORK_PER_FONT_BYTE * maxFontBytes;
}

/** This thread's subsetter, sized for fonts up to `maxFontBytes`; compiled on first use (~35 ms), then kept. */
export async function subsetter(maxFontBytes: number): Promise<Subsetter> {
  const heapBytes = heapBytesFor(maxFontBytes);
  if (current === undefined || current.heapBytes < pagesFor(heapBytes) * WASM_PAGE) current = await createSubsetter(heapBytes);
  return current;
}

/** A new instance with a heap of at least `heapBytes` (never less than harfbuzzjs's own 65 MiB); modules are compiled once per size. */
export async function createSubsetter(heapBytes: number): Promise<Subsetter> {
  const pages = pagesFor(heapBytes);
  let module = compiled.get(pages);
  if (module === undefined) {
    const path = createRequire(import.meta.url).resolve('harfbuzzjs/dist/harfbuzz-subset.wasm');
    module = wasm.compile(withMemoryPages(readFileSync(path), pages));
    compiled.set(pages, module);
  }
  return new Subsetter(await module);
}

/**
 * Drops this thread's instance: its whole heap (a WebAssembly memory never
 * shrinks) goes with it once collected, and the next call starts afresh.
 */
export function discardSubsetter(): void {
  current = undefined;
}
