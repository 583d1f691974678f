// Complex shaping (issue 15): the render engine shapes with fontkit (through
// pdf-lib and the font seam, workers/seams/fonts-parse.ts, which prepares
// Thai SARA AM as HarfBuzz does), not HarfBuzz. This shows, word by word and
// side by side, that the engine picks the glyphs, in the same order and at the
// same offsets, that HarfBuzz's hb-shape (Debian's libharfbuzz-bin, installed
// by test/tools.sh) picks, on the fonts the engine falls back to: Devanagari
// conjuncts and reordered vowel signs, Bengali and Tamil, Thai marks and
// SARA AM after tone marks, Arabic joining and Hebrew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parseFont } from '../workers/seams/fonts-parse.js';

const require = createRequire(import.meta.url);
const run = promisify(execFile);

function fontsource(pkg: string, subset: string): string {
  return join(dirname(require.resolve(`@fontsource/${pkg}/package.json`)), 'files', `${pkg}-${subset}-400-normal.woff2`);
}

const DEJAVU = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf');

const WORDS: ReadonlyArray<readonly [font: string, words: readonly string[]]> = [
  [fontsource('noto-sans-devanagari', 'devanagari'), ['हिन्दी', 'क्षत्रिय', 'श्री', 'प्रकाश', 'द्वारा', 'कृष्ण', 'धर्म']],
  [fontsource('noto-sans-bengali', 'bengali'), ['বাংলা', 'ক্ষ', 'প্রেম']],
  [fontsource('noto-sans-tamil', 'tamil'), ['தமிழ்', 'கொ', 'ஸ்ரீ']],
  [fontsource('noto-sans-thai', 'thai'), ['สวัสดี', 'ที่', 'ภาษาไทย', 'ครับ', 'น้ำ', 'น้ำใจ', 'ค่ำ', 'ซ้ำ', 'ป่ำ', 'ทำ', 'กำลัง']],
  [DEJAVU, ['مرحبا', 'بالعالم', 'العربية', 'שלום', 'עולם']],
];

async function glyphIds(fontFile: string, word: string, dir: string): Promise<{ fontkit: string; harfbuzz: string }> {
  let bytes = await readFile(fontFile);
  if (fontFile.endsWith('.woff2')) {
    const { decompress } = require('wawoff2') as { decompress(data: Uint8Array): Promise<Uint8Array> };
    bytes = Buffer.from(await decompress(bytes));
  }
  const ttf = join(dir, 'font.ttf');
  await writeFile(ttf, bytes);
  const run_ = parseFont(bytes).font.layout(word);
  // Glyph id, x/y offset and advance per glyph, written as hb-shape writes them (`id@x,y+advance`, the offset left out when zero).
  const shaped = run_.glyphs.map((glyph, i) => {
    const { xOffset, yOffset, xAdvance } = run_.positions[i] as { xOffset: number; yOffset: number; xAdvance: number };
    return `${glyph.id}${xOffset === 0 && yOffset === 0 ? '' : `@${xOffset},${yOffset}`}+${xAdvance}`;
  });
  const { stdout } = await run('hb-shape', ['--no-glyph-names', '--no-clusters', ttf, word]);
  return { fontkit: shaped.join(','), harfbuzz: stdout.trim().replace(/[[\]]/g, '').split('|').join(',') };
}

test('the engine shapes every test word to the glyphs, offsets and advances hb-shape gives, in the same (visual) order', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'platen-shaping-'));
  try {
    for (const [font, words] of WORDS) {
      for (const word of words) {
        const { fontkit: ours, harfbuzz } = await glyphIds(font, word, dir);
        assert.equal(ours, harfbuzz, `${word} in ${font.split('/').pop()}`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
