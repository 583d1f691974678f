// The font task's pieces without a pool or a server: the WebAssembly memory
// rewrite and why it is there, WOFF unpacking against fontTools, and the
// task itself on a subset too big for harfbuzzjs's own heap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { createSubsetter, heapBytesFor } from '../../workers/font/harfbuzz.js';
import { faceCount } from '../../workers/font/sfnt-faces.js';
import { fontSubset } from '../../workers/font/subset-task.js';
import { WASM_PAGE, withMemoryPages } from '../../workers/font/wasm-memory.js';
import { formatOf, unwrap } from '../../workers/font/web-fonts.js';
import { DEJAVU_SANS, NOTO_CJK_TTC, fontToolsWebFont, parseFont, withFontFile } from '../helpers/font-tools.js';

const run = promisify(execFile);
const HB_WASM = createRequire(import.meta.url).resolve('harfbuzzjs/dist/harfbuzz-subset.wasm');
/** harfbuzzjs 1.6.4's own memory: 1040 pages, fixed. */
const STOCK_HEAP = 1040 * WASM_PAGE;
// @types/node 20 has no WebAssembly namespace; the one call used here, typed.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: { memory: { buffer: ArrayBuffer } } } }> };
};
const BMP = Array.from({ length: 0x10000 }, (_, cp) => cp);

test('withMemoryPages: the module instantiates with the memory asked for, never less than it declares', async () => {
  const module = new Uint8Array(await readFile(HB_WASM));
  for (const [pages, expected] of [
    [4096, 4096],
    [16, 1040],
  ]) {
    const { instance } = await wasm.instantiate(withMemoryPages(module, pages as number), {});
    assert.equal(instance.exports.memory.buffer.byteLength, (expected as number) * WASM_PAGE);
  }
  assert.throws(() => withMemoryPages(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), 10), /not a WebAssembly module/);
});

test("harfbuzzjs's own heap cannot subset a CJK face to the whole BMP; the heap sized from the font cap can", async () => {
  const cjk = new Uint8Array(await readFile(NOTO_CJK_TTC));
  const spec = { codepoints: BMP, flags: 0x1, drop: [] };
  const stock = await createSubsetter(STOCK_HEAP);
  assert.equal(stock.heapBytes, STOCK_HEAP);
  assert.equal(stock.subset('cjk', () => cjk, 0, spec), undefined, 'the 65 MiB heap is too small');
  // The same heap subsets the same face to .notdef: the failure was room, not the font.
  assert.ok(stock.subset('cjk', () => cjk, 0, { ...spec, codepoints: [] }) !== undefined);

  const sized = await createSubsetter(heapBytesFor(50 * 1024 * 1024));
  const out = sized.subset('cjk', () => cjk, 0, spec);
  assert.ok(out !== undefined, 'the sized heap subsets it');
  assert.ok(parseFont(out).numGlyphs > 60_000);
});

test('the task subsets a whole CJK face, and answers the identical request from its cache', async () => {
  const cjk = new Uint8Array(await readFile(NOTO_CJK_TTC));
  const body = new TextEncoder().encode(JSON.stringify({ font_data: Buffer.from(cjk).toString('base64'), codepoints: BMP, face_index: 3, options: { optimize_cff: true } }));
  const call = () => fontSubset({ body: body.slice().buffer, length: body.byteLength, options: { maxFontBytes: 50 * 1024 * 1024 } });
  const first = await call();
  assert.ok(first.ok, first.ok ? '' : first.detail);
  const data = JSON.parse(new TextDecoder().decode(first.value.body)) as { included_glyphs: number; font_data: string };
  assert.ok(data.included_glyphs > 60_000, `${data.included_glyphs} glyphs`);
  assert.equal(first.value.meta?.cached, false);
  const second = await call();
  assert.ok(second.ok && second.value.meta?.cached === true);
});

test('WOFF: every table unpacked byte for byte as fontTools wrote it', async () => {
  const dejavu = new Uint8Array(await readFile(DEJAVU_SANS));
  const text = 'Grüße, Ελλάδα, Привет: 0123456789';
  const woff = await fontToolsWebFont(dejavu, 'woff', text);
  assert.equal(formatOf(woff), 'woff');
  const sfnt = await unwrap(woff, 10 * 1024 * 1024);
  assert.equal(formatOf(sfnt), 'sfnt');
  assert.equal(faceCount(sfnt), 1);
  // fontTools' own plain TTF of the same subset: the tables must be identical.
  const ttf = await withFontFile(dejavu, async (path, dir) => {
    await run('fonttools', ['subset', path, `--text=${text}`, `--output-file=${dir}/out.ttf`]);
    return new Uint8Array(await readFile(`${dir}/out.ttf`));
  });
  const ours = tables(sfnt);
  const theirs = tables(ttf);
  assert.deepEqual([...ours.keys()].sort(), [...theirs.keys()].sort());
  for (const [tag, bytes] of theirs) {
    // head.checkSumAdjustment (bytes 8-11) depends on the whole file's layout.
    const strip = (b: Uint8Array) => (tag === 'head' ? Buffer.concat([b.subarray(0, 8), b.subarray(12)]) : Buffer.from(b));
    assert.ok(strip(ours.get(tag) as Uint8Array).equals(strip(bytes)), `table '${tag}' differs`);
  }
});

test('WOFF2 decodes to a font fontkit reads', async () => {
  const dejavu = new Uint8Array(await readFile(DEJAVU_SANS));
  const woff2 = await fontToolsWebFont(dejavu, 'woff2', 'ABC abc');
  assert.equal(formatOf(woff2), 'woff2');
  const sfnt = await unwrap(woff2, 10 * 1024 * 1024);
  const font = parseFont(sfnt);
  assert.ok(font.glyphForCodePoint(0x61).id > 0);
});

function tables(font: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const out = new Map<string, Uint8Array>();
  for (let i = 0; i < view.getUint16(4); i++) {
    const record = 12 + 16 * i;
    const tag = Buffer.from(font.subarray(record, record + 4)).toString('latin1');
    const offset = view.getUint32(record + 8);
    out.set(tag, font.subarray(offset, offset + view.getUint32(record + 12)));
  }
  return out;
}
