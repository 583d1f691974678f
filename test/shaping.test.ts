// Complex shaping (issue 15): the render engine shapes with fontkit (through
// pdf-lib), not HarfBuzz. This shows, word by word and side by side, that
// fontkit picks the glyphs HarfBuzz's hb-shape (Debian's libharfbuzz-bin,
// installed by test/tools.sh) picks, on the fonts the engine falls back to:
// Devanagari conjuncts and reordered vowel signs, Bengali and Tamil, Thai
// marks, Arabic joining and Hebrew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import * as fontkit from 'fontkit';

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
  [fontsource('noto-sans-thai', 'thai'), ['สวัสดี', 'ที่', 'ภาษาไทย', 'ครับ']],
  [DEJAVU, ['مرحبا', 'بالعالم', 'العربية', 'שלום', 'עולם']],
];

/**
 * Where fontkit and HarfBuzz differ today: fontkit has no Thai shaper, so
 * SARA AM (U+0E33) after a tone mark is not decomposed and reordered as
 * HarfBuzz does (the tone mark takes another glyph). Listed so the README's
 * statement stays true: the test fails once they agree.
 */
const KNOWN_DIFFERENCES: ReadonlyArray<readonly [font: string, word: string]> = [[fontsource('noto-sans-thai', 'thai'), 'น้ำ']];

async function glyphIds(fontFile: string, word: string, dir: string): Promise<{ fontkit: string; harfbuzz: string }> {
  let bytes = await readFile(fontFile);
  if (fontFile.endsWith('.woff2')) {
    const { decompress } = require('wawoff2') as { decompress(data: Uint8Array): Promise<Uint8Array> };
    bytes = Buffer.from(await decompress(bytes));
  }
  const ttf = join(dir, 'font.ttf');
  await writeFile(ttf, bytes);
  const font = fontkit.create(bytes) as fontkit.Font;
  const shaped = font.layout(word).glyphs.map((glyph) => glyph.id).join(',');
  const { stdout } = await run('hb-shape', ['--no-glyph-names', '--no-positions', '--no-clusters', ttf, word]);
  return { fontkit: shaped, harfbuzz: stdout.trim().replace(/[[\]]/g, '').split('|').join(',') };
}

test('fontkit shapes every test word to the glyphs hb-shape gives, in the same (visual) order', async () => {
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

test('the known differences from HarfBuzz are still there (update the README when one goes)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'platen-shaping-'));
  try {
    for (const [font, word] of KNOWN_DIFFERENCES) {
      const { fontkit: ours, harfbuzz } = await glyphIds(font, word, dir);
      assert.notEqual(ours, harfbuzz, `${word} now shapes as HarfBuzz does`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
