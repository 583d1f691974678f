// The world's scripts with no font in the request (issue 15): each rendered
// by a real server and read back the way a reader would, with poppler's
// pdftotext (the text in logical order), pdffonts (embedded subsets) and
// pdftotext -bbox (where the words sit).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, renderPdf } from './helpers/http.js';
import { pdfFonts, pdfToText, qpdfCheck, wordBoxes } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** pdftotext marks direction runs with U+202A-U+202C embeddings; they are not text. Whitespace is normalised. */
const words = (text: string): string => text.replace(/[\u202a-\u202e\f]/g, '').split(/\s+/).filter(Boolean).join(' ');

const GOLDEN: ReadonlyArray<readonly [script: string, text: string, font: RegExp]> = [
  ['Hebrew', 'שלום עולם זהו טקסט בעברית', /DejaVuSans/],
  ['Arabic', 'مرحبا بكم في المدينة الجميلة', /DejaVuSans/],
  ['Devanagari', 'नमस्ते दुनिया, यह एक परीक्षण है। क्षत्रिय श्री', /NotoSansDevanagari/],
  ['Tamil', 'வணக்கம் உலகம்', /NotoSansTamil/],
  ['Thai', 'สวัสดีครับ ยินดีต้อนรับสู่ประเทศไทย', /NotoSansThai/],
  ['Chinese (simplified)', '你好，世界！这是简体中文。', /NotoSansSC/],
  ['Chinese (traditional)', '你好，世界！這是繁體中文。', /NotoSans(SC|TC)/],
  ['Japanese', 'こんにちは、世界。日本語のテキストです。', /NotoSans(SC|JP)/],
  ['Korean', '안녕하세요, 세계! 한국어 텍스트입니다.', /NotoSansKR/],
];

describe('scripts beyond Latin, Greek, Cyrillic and Arabic need no font in the request', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  for (const [script, text, font] of GOLDEN) {
    test(`${script}: pdftotext gives the text back as sent, from an embedded subset`, async () => {
      const pdf = await renderPdf(s.base, { operations: [{ type: 'add_text', text, size: 16 }] });
      await qpdfCheck(pdf);
      assert.equal(words(await pdfToText(pdf)), words(text));
      const fonts = await pdfFonts(pdf);
      const used = fonts.find((f) => font.test(f.name));
      assert.ok(used, `expected a font matching ${font} among ${fonts.map((f) => f.name).join(', ')}`);
      assert.ok(used.embedded && used.subset, `${used.name} is embedded as a subset`);
    });
  }

  test("the document's language picks the Han face: Japanese forms for ja, simplified Chinese otherwise", async () => {
    const fontsFor = async (language?: string) => {
      const pdf = await renderPdf(s.base, { metadata: language === undefined ? {} : { language }, operations: [{ type: 'add_text', text: '日本語の漢字' }] });
      return (await pdfFonts(pdf)).map((f) => f.name).join(' ');
    };
    assert.match(await fontsFor('ja'), /NotoSansJP/);
    assert.doesNotMatch(await fontsFor('ja'), /NotoSansSC/);
    assert.match(await fontsFor(), /NotoSansSC/);
    assert.match(await fontsFor('zh-TW'), /NotoSansTC/);
  });

  test('a Latin document loads no fallback face', async () => {
    const pdf = await renderPdf(s.base, { operations: [{ type: 'add_text', text: 'Plain Latin text, nothing else.' }] });
    assert.deepEqual((await pdfFonts(pdf)).map((f) => f.name), ['Helvetica']);
  });

  test('a right-to-left paragraph is aligned right by default, left when asked, and its words read right to left', async () => {
    const text = 'שלום עולם';
    const boxes = async (extra: Record<string, unknown>) => wordBoxes(await renderPdf(s.base, { margin: 50, operations: [{ type: 'add_text', text, ...extra }] }));
    const right = await boxes({});
    // A4 is 595 pt wide; the right margin is at 545.
    assert.ok(Math.abs(Math.max(...right.map((w) => w.xMax)) - 545) < 1, `right edge at ${Math.max(...right.map((w) => w.xMax))}`);
    // -bbox lists a right-to-left word's characters in visual order.
    const visual = (word: string) => [...word].reverse().join('');
    const first = right.find((w) => w.word === visual('שלום'));
    const second = right.find((w) => w.word === visual('עולם'));
    assert.ok(first !== undefined && second !== undefined, JSON.stringify(right));
    assert.ok(first.xMin > second.xMax, 'the first word of a right-to-left paragraph is the rightmost');
    const left = await boxes({ align: 'left' });
    assert.ok(Math.abs(Math.min(...left.map((w) => w.xMin)) - 50) < 1);
    // direction ltr: a left-to-right paragraph (of right-to-left words), so it starts at the left margin.
    const ltr = await boxes({ direction: 'ltr' });
    assert.ok(Math.abs(Math.min(...ltr.map((w) => w.xMin)) - 50) < 1, 'direction ltr aligns left');
  });

  test('numbers and Latin inside a right-to-left paragraph keep their own left-to-right order', async () => {
    const pdf = await renderPdf(s.base, { operations: [{ type: 'add_text', text: 'המחיר 250 ו-IBM' }] });
    const boxes = await wordBoxes(pdf);
    const number = boxes.find((w) => w.word.includes('250'));
    assert.ok(number !== undefined, JSON.stringify(boxes));
    assert.ok(!boxes.some((w) => w.word.includes('052')), 'the digits are not reversed');
    assert.ok(!boxes.some((w) => w.word.includes('MBI')), 'the Latin name is not reversed');
  });

  test('Chinese, Japanese and Korean inside a right-to-left paragraph keep their order (each character is a place to break, not a space)', async () => {
    const texts = ['שלום 中文 עולם', 'שלום 日本語 עולם', 'שלום 한국어 עולם'];
    const pdf = await renderPdf(s.base, { operations: [...texts.map((text) => ({ type: 'add_text', text })), { type: 'add_text', text: '中文 abc', direction: 'rtl' }] });
    // Compared without spaces: pdftotext puts the space before an embedded left-to-right run inside its embedding.
    const unspaced = (text: string) => words(text).replace(/ /g, '');
    const lines = (await pdfToText(pdf)).split('\n').map(unspaced).filter(Boolean);
    assert.deepEqual(lines, [...texts, '中文 abc'].map(unspaced));
    // Drawn in that order too: in a right-to-left paragraph "中文 abc" is one left-to-right run, 中 leftmost.
    const boxes = await wordBoxes(pdf);
    const han = boxes.find((w) => w.word === '中文');
    const latin = boxes.find((w) => w.word === 'abc' && w.yMin > (han?.yMin ?? 0) - 5);
    assert.ok(han !== undefined && latin !== undefined && han.xMax < latin.xMin, JSON.stringify(boxes));
  });

  test('an emoji is no strong character: a right-to-left paragraph that starts with one is right-to-left', async () => {
    const boxes = await wordBoxes(await renderPdf(s.base, { margin: 50, operations: [{ type: 'add_text', text: '🔬 שלום עולם' }] }));
    const emoji = boxes.find((w) => w.word === '🔬');
    assert.ok(emoji !== undefined, JSON.stringify(boxes));
    // The paragraph's first character is its rightmost, at the right margin (A4: 545 pt).
    assert.ok(Math.abs(emoji.xMax - 545) < 1 && boxes.every((w) => w.xMax <= emoji.xMax), JSON.stringify(boxes));
  });

  test('Chinese breaks between characters, never before closing punctuation; Thai breaks between words', async () => {
    const chinese = '这是一个很长的中文段落，没有空格，所以必须在字符之间断行。'.repeat(6);
    const lines = (await pdfToText(await renderPdf(s.base, { operations: [{ type: 'add_text', text: chinese, width: 200 }] }))).split('\n').filter((l) => l.trim() !== '');
    assert.ok(lines.length > 5, `wrapped into ${lines.length} lines`);
    for (const line of lines) assert.doesNotMatch(line.trim(), /^[，。！？、）]/, `a line starts with closing punctuation: ${line}`);
    assert.equal(lines.join(''), chinese);

    const thai = 'สวัสดีครับยินดีต้อนรับสู่ประเทศไทย'.repeat(5);
    const thaiLines = (await pdfToText(await renderPdf(s.base, { operations: [{ type: 'add_text', text: thai, width: 150 }] }))).split('\n').filter((l) => l.trim() !== '');
    assert.ok(thaiLines.length > 3);
    const segmenter = new Intl.Segmenter('th', { granularity: 'word' });
    const boundaries = new Set([...segmenter.segment(thai)].map((segment) => segment.index));
    let at = 0;
    for (const line of thaiLines.slice(0, -1)) {
      at += line.trim().length;
      assert.ok(boundaries.has(at), `a Thai line ends inside a word: ${line}`);
    }
  });

  test('emoji are drawn from Noto Emoji, in one colour; digits and symbols a text face has stay in it', async () => {
    const text = 'Science 🔬 works 👍 ❤️ since 2026 ©';
    const pdf = await renderPdf(s.base, { operations: [{ type: 'add_text', text, size: 16 }] });
    await qpdfCheck(pdf);
    // The variation selector (U+FE0F) is default-ignorable: neither drawn nor extracted.
    assert.equal(words(await pdfToText(pdf)), words(text.replace('\u{fe0f}', '')));
    const fonts = await pdfFonts(pdf);
    const emoji = fonts.filter((f) => /\+NotoEmoji-Regular$/.test(f.name));
    assert.ok(emoji.length > 0 && emoji.every((f) => f.embedded && f.subset), fonts.map((f) => f.name).join(', '));
    // Noto Emoji also maps digits, #, *, © and ®: a face before it draws them.
    const symbols = await renderPdf(s.base, { operations: [{ type: 'add_text', text: '#1 * 2026 © ®', size: 16 }] });
    assert.deepEqual((await pdfFonts(symbols)).map((f) => f.name), ['Helvetica']);
  });

  test('a character no bundled face has is still a 422 naming it', async () => {
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'add_text', text: 'ok \u{13000}' }] });
    assert.equal(response.status, 422);
    assert.match(await response.text(), /U\+13000/);
  });
});
