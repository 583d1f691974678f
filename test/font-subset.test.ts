// POST /v1/font/subset end to end: fonts from the machine (DejaVu from npm,
// Noto CJK from Debian) sent to the real server, every answer checked against
// the contract, and every subset read back with tools that are not ours:
// fontkit, fontconfig's fc-scan, fontTools' ttx, Debian's hb-subset CLI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { postJson } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract } from './helpers/openapi.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { DEJAVU_SANS, NOTO_CJK_TTC, cffXml, fcScan, fontToolsWebFont, hbSubsetCli, mappedCodepoints, parseFont, tableTags } from './helpers/font-tools.js';

const PATH = '/v1/font/subset';
const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const codepointsOf = (text: string) => [...text].map((ch) => ch.codePointAt(0) as number);

/** Printable ASCII: no composite glyphs in DejaVu, so a subset without layout holds exactly these plus .notdef. */
const ASCII = Array.from({ length: 95 }, (_, i) => 0x20 + i);
const CJK_TEXT = '你好世界こんにちは안녕하세요';

interface Subset {
  readonly font: Uint8Array;
  readonly data: { font_data: string; original_size_bytes: number; subset_size_bytes: number; reduction_percent: number; included_glyphs: number };
  readonly meta: { duration_ms: number; worker_id: string; cached: boolean };
}

let server: TestServer;
let contract: Contract;
let dejavu: Uint8Array;
let cjk: Uint8Array;
let cjkBase64: string;

before(async () => {
  // One worker, so that a repeated request meets the cache that served the first.
  server = await startTestServer({ PLATEN_WORKERS: '1' });
  contract = await loadContract('accel');
  dejavu = new Uint8Array(await readFile(DEJAVU_SANS));
  cjk = new Uint8Array(await readFile(NOTO_CJK_TTC));
  cjkBase64 = b64(cjk);
});
after(() => server.close());

async function subset(body: Record<string, unknown>, key: string = KEYS.core): Promise<Subset> {
  const response = await postJson(server.base, PATH, body, bearer(key));
  assert.equal(response.status, 200, `expected 200, got ${response.status}: ${response.status === 200 ? '' : await response.clone().text()}`);
  const envelope = (await assertMatchesContract(contract, 'post', PATH, response)) as Pick<Subset, 'data' | 'meta'>;
  const font = new Uint8Array(Buffer.from(envelope.data.font_data, 'base64'));
  assert.equal(envelope.data.subset_size_bytes, font.byteLength);
  assert.equal(envelope.data.reduction_percent, Math.round((1 - font.byteLength / envelope.data.original_size_bytes) * 10_000) / 100);
  return { font, ...envelope };
}

describe('TrueType', () => {
  test('a subset holds exactly the glyphs asked for, and every tool reads it', async () => {
    const asked = [...codepointsOf('Hello, World!'), 0x10ffff, 0xe000];
    const { font, data, meta } = await subset({ font_data: b64(dejavu), codepoints: asked, options: { include_gsub: false } });
    assert.equal(meta.cached, false);
    assert.match(meta.worker_id, /^worker-\d+$/);
    assert.equal(data.original_size_bytes, dejavu.byteLength);
    assert.deepEqual([...font.subarray(0, 4)], [0, 1, 0, 0], 'TrueType flavour');

    const expected = new Set(codepointsOf('Hello, World!'));
    const parsed = parseFont(font);
    assert.equal(parsed.numGlyphs, data.included_glyphs);
    // .notdef, then one glyph per distinct character (U+10FFFF and U+E000 are not in DejaVu).
    assert.equal(data.included_glyphs, expected.size + 1);
    assert.deepEqual(mappedCodepoints(parsed), expected);
    for (const cp of expected) assert.ok(parsed.glyphForCodePoint(cp).id > 0, `U+${cp.toString(16)} has a glyph`);
    assert.equal(parsed.familyName, 'DejaVu Sans');

    assert.deepEqual((await fcScan(font)).codepoints, expected);
    const tags = await tableTags(font);
    for (const tag of ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name', 'OS/2', 'post', 'glyf', 'loca']) assert.ok(tags.has(tag), `the subset keeps '${tag}'`);

    // Debian's hb-subset (HarfBuzz 6) reads our subset, and given DejaVu and the same request keeps as many glyphs.
    const again = await hbSubsetCli(font, [...expected]);
    assert.equal(parseFont(again).numGlyphs, data.included_glyphs);
    const reference = await hbSubsetCli(dejavu, asked, ['--no-hinting', '--drop-tables+=GSUB,GPOS,GDEF']);
    assert.equal(parseFont(reference).numGlyphs, data.included_glyphs);
  });

  test('preserve_hints keeps the TrueType instructions; the default drops them', async () => {
    const plain = await subset({ font_data: b64(dejavu), codepoints: ASCII });
    const hinted = await subset({ font_data: b64(dejavu), codepoints: ASCII, options: { preserve_hints: true } });
    const plainTags = await tableTags(plain.font);
    const hintedTags = await tableTags(hinted.font);
    for (const tag of ['fpgm', 'prep', 'cvt']) {
      assert.ok(hintedTags.has(tag), `hinted subset has '${tag}'`);
      assert.ok(!plainTags.has(tag), `default subset has no '${tag}'`);
    }
    assert.ok(hinted.data.subset_size_bytes > plain.data.subset_size_bytes);
    assert.equal(hinted.data.included_glyphs, plain.data.included_glyphs);
  });

  test('include_gsub: false drops GSUB, GPOS and GDEF; by default they are kept and their closure adds glyphs', async () => {
    const kept = await subset({ font_data: b64(dejavu), codepoints: codepointsOf('office fluff') });
    const dropped = await subset({ font_data: b64(dejavu), codepoints: codepointsOf('office fluff'), options: { include_gsub: false } });
    const keptTags = await tableTags(kept.font);
    const droppedTags = await tableTags(dropped.font);
    for (const tag of ['GSUB', 'GPOS', 'GDEF']) {
      assert.ok(keptTags.has(tag), `default keeps '${tag}'`);
      assert.ok(!droppedTags.has(tag), `include_gsub false drops '${tag}'`);
    }
    // o f i c e space l u: 8 characters and .notdef; the kept layout also brings DejaVu's ff, fi, fl, ffi and ffl ligatures.
    assert.equal(dropped.data.included_glyphs, 9);
    assert.equal(kept.data.included_glyphs, 9 + 5);
    assert.deepEqual(mappedCodepoints(parseFont(kept.font)), new Set(codepointsOf('office fluff')));
  });
});

describe('OpenType/CFF collection', () => {
  test('face_index picks the face; the subset is a CFF font of that face', async () => {
    const asked = codepointsOf(CJK_TEXT);
    const { font, data } = await subset({ font_data: cjkBase64, codepoints: asked, face_index: 2, options: { include_gsub: false } });
    assert.equal(data.original_size_bytes, cjk.byteLength);
    assert.equal(Buffer.from(font.subarray(0, 4)).toString('latin1'), 'OTTO');
    const scan = await fcScan(font);
    assert.equal(scan.family, 'Noto Sans CJK SC');
    assert.deepEqual(scan.codepoints, new Set(asked));
    const parsed = parseFont(font);
    assert.equal(parsed.numGlyphs, data.included_glyphs);
    assert.equal(data.included_glyphs, asked.length + 1);
    assert.ok(data.reduction_percent > 99.9, `${data.reduction_percent} %`);
    assert.ok((await tableTags(font)).has('CFF'));
    assert.equal(parseFont(await hbSubsetCli(font, asked)).numGlyphs, data.included_glyphs);

    const japanese = await subset({ font_data: cjkBase64, codepoints: asked, face_index: 0, options: { include_gsub: false } });
    assert.equal((await fcScan(japanese.font)).family, 'Noto Sans CJK JP');
  });

  test('optimize_cff desubroutinizes and preserve_hints keeps the CFF hints', async () => {
    const request = { font_data: cjkBase64, codepoints: codepointsOf(CJK_TEXT), face_index: 2 };
    const calls = (xml: string) => (xml.match(/\bcall(?:g)?subr\b/g) ?? []).length;
    const hints = (xml: string) => (xml.match(/\b(?:hstem|vstem|hintmask|hstemhm|vstemhm)\b/g) ?? []).length;
    const plain = await cffXml((await subset(request)).font);
    const desubroutinized = await cffXml((await subset({ ...request, options: { optimize_cff: true } })).font);
    const hinted = await cffXml((await subset({ ...request, options: { preserve_hints: true } })).font);
    assert.ok(calls(plain) > 0, 'subroutines are kept by default');
    assert.equal(calls(desubroutinized), 0, 'optimize_cff leaves no subroutine call');
    assert.equal(hints(plain), 0, 'hints are dropped by default');
    assert.ok(hints(hinted) > 0, 'preserve_hints keeps them');
  });
});

describe('WOFF and WOFF2 (made by fontTools)', () => {
  for (const flavor of ['woff', 'woff2'] as const) {
    test(`${flavor}: unpacked and subset to a plain font`, async () => {
      const web = await fontToolsWebFont(dejavu, flavor, 'The quick brown fox ÆØÅ €');
      const asked = codepointsOf('fox€Ø');
      const { font, data } = await subset({ font_data: b64(web), codepoints: asked, options: { include_gsub: false } });
      assert.equal(data.original_size_bytes, web.byteLength);
      assert.deepEqual([...font.subarray(0, 4)], [0, 1, 0, 0], 'an uncompressed TrueType font, not WOFF');
      assert.deepEqual(mappedCodepoints(parseFont(font)), new Set(asked));
      assert.deepEqual((await fcScan(font)).codepoints, new Set(asked));
      assert.equal(data.included_glyphs, asked.length + 1);
    });
  }

  test('woff2 of a CFF face', async () => {
    const web = await fontToolsWebFont(cjk, 'woff2', CJK_TEXT, 1);
    const asked = codepointsOf('你好');
    const { font, data } = await subset({ font_data: b64(web), codepoints: asked });
    assert.equal(Buffer.from(font.subarray(0, 4)).toString('latin1'), 'OTTO');
    assert.equal((await fcScan(font)).family, 'Noto Sans CJK KR');
    assert.deepEqual(mappedCodepoints(parseFont(font)), new Set(asked));
    assert.ok(data.included_glyphs >= 3);
  });
});

describe('cache', () => {
  test('an identical request is answered from the worker cache, byte for byte; anything different is not', async () => {
    const asked = codepointsOf('cached subset');
    const first = await subset({ font_data: b64(dejavu), codepoints: asked, options: { preserve_hints: true } });
    const second = await subset({ font_data: b64(dejavu), codepoints: asked, options: { preserve_hints: true } });
    assert.equal(first.meta.cached, false);
    assert.equal(second.meta.cached, true);
    assert.deepEqual(second.data, first.data);
    // The same set of code points in another order, with repeats: the same request.
    const shuffled = await subset({ font_data: b64(dejavu), codepoints: [...asked].reverse().concat(asked), options: { preserve_hints: true } });
    assert.equal(shuffled.meta.cached, true);
    // Other options, other code points, another font: computed.
    assert.equal((await subset({ font_data: b64(dejavu), codepoints: asked })).meta.cached, false);
    assert.equal((await subset({ font_data: b64(dejavu), codepoints: [...asked, 0x41], options: { preserve_hints: true } })).meta.cached, false);
    const other = new Uint8Array(await readFile(new URL('DejaVuSansMono.ttf', DEJAVU_SANS)));
    const mono = await subset({ font_data: b64(other), codepoints: asked, options: { preserve_hints: true } });
    assert.equal(mono.meta.cached, false);
    assert.notEqual(mono.data.font_data, first.data.font_data);
  });
});
