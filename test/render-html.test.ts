// add_html end to end: HTML in, a PDF checked with qpdf and poppler
// (pdftotext for reading order, -bbox for positions, pdfimages for images).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import { postJson, readProblem } from './helpers/http.js';
import { pdfInfo, pdfToText, qpdfCheck, withFile } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);

/** A 1 x 1 PNG (one green pixel). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A 1 x 1 RGB PNG of the colour `index` (24 bits), so every index gives different bytes. */
function onePixelPng(index: number): string {
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const pixel = deflateSync(Buffer.from([0, index & 255, (index >> 8) & 255, (index >> 16) & 255]));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', pixel), chunk('IEND', Buffer.alloc(0))]).toString('base64');
}

interface Word {
  readonly text: string;
  readonly page: number;
  readonly xMin: number;
  readonly xMax: number;
  readonly yMin: number;
  readonly yMax: number;
}


/** Every word with its page (1-based) and box in points from the page's top-left, by `pdftotext -bbox`. */
async function words(pdf: Uint8Array): Promise<{ words: Word[]; pageWidth: number; pageHeight: number }> {
  const xml = await withFile(pdf, async (path) => (await run('pdftotext', ['-bbox', path, '-'], { maxBuffer: 64 * 1024 * 1024 })).stdout);
  const out: Word[] = [];
  let page = 0;
  let pageWidth = 0;
  let pageHeight = 0;
  for (const line of xml.split('\n')) {
    const pageMatch = /<page width="([\d.]+)" height="([\d.]+)">/.exec(line);
    if (pageMatch !== null) {
      page++;
      pageWidth = Number(pageMatch[1]);
      pageHeight = Number(pageMatch[2]);
      continue;
    }
    const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (m !== null) out.push({ text: decodeXml(m[5] as string), page, xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]) });
  }
  return { words: out, pageWidth, pageHeight };
}

function decodeXml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

function find(list: readonly Word[], text: string): Word {
  const word = list.find((w) => w.text === text);
  assert.ok(word !== undefined, `no word "${text}" in ${list.map((w) => w.text).join(' ')}`);
  return word;
}

/** The URIs of link annotations in an uncompressed PDF (pdf.ts writes them as hex strings). */
function linkTargets(pdf: Uint8Array): string[] {
  const text = Buffer.from(pdf).toString('latin1');
  return [...text.matchAll(/\/URI <([0-9A-Fa-f]*)>/g)].map((m) => Buffer.from(m[1] as string, 'hex').toString('latin1'));
}

function assertInOrder(text: string, expected: readonly string[]): void {
  let from = 0;
  for (const part of expected) {
    const at = text.indexOf(part, from);
    assert.ok(at >= 0, `"${part}" after position ${from} in:\n${text}`);
    from = at + part.length;
  }
}

describe('add_html', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  async function render(html: string, extra: Record<string, unknown> = {}, request: Record<string, unknown> = {}): Promise<Uint8Array> {
    const response = await postJson(s.base, '/api/v1/render', { output: { compress: false }, ...request, operations: [{ type: 'add_html', html, ...extra }] });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    return new Uint8Array(await response.arrayBuffer());
  }

  async function problem(body: unknown) {
    const response = await postJson(s.base, '/api/v1/render', body);
    assert.equal(response.status, 422, await response.clone().text());
    return readProblem(response);
  }

  test('an article comes out in reading order and passes qpdf', async () => {
    const pdf = await render(`
      <h1>Quarterly report</h1>
      <p>Revenue grew by <strong>twelve</strong> percent, <em>as planned</em>; see <a href="https://example.com/q3">the figures</a>.</p>
      <h2>Highlights</h2>
      <ul>
        <li>Sales<ul><li>North region</li><li>South region</li></ul></li>
        <li>Support</li>
      </ul>
      <ol><li>First step</li><li>Second step</li></ol>
      <blockquote><p>Quality is not an act, it is a habit.</p></blockquote>
      <pre>function total() {
    return 42;
}</pre>
      <hr>
      <table>
        <thead><tr><th>Item</th><th>Amount</th></tr></thead>
        <tbody><tr><td>Widgets</td><td>1200</td></tr><tr><td>Gadgets</td><td>800</td></tr></tbody>
      </table>
      <p>The end.</p>`);
    assert.match(await qpdfCheck(pdf), /No syntax or stream encoding errors/);
    const text = await pdfToText(pdf);
    assertInOrder(text, [
      'Quarterly report',
      'Revenue grew by twelve percent, as planned; see the figures.',
      'Highlights',
      'Sales',
      'North region',
      'South region',
      'Support',
      '1.',
      'First step',
      '2.',
      'Second step',
      'Quality is not an act, it is a habit.',
      'function total() {',
      'return 42;',
      '}',
      'Item',
      'Amount',
      'Widgets',
      '1200',
      'Gadgets',
      '800',
      'The end.',
    ]);
    // Bullets by depth: a disc for the outer list, a circle for the nested one.
    assertInOrder(text, ['•', 'Sales', '◦', 'North region']);

    const { words: all } = await words(pdf);
    // pre keeps its line breaks and indentation: three lines, the middle one indented by four Courier spaces (4 x 0.6 em).
    const fn = find(all, 'function');
    const ret = find(all, 'return');
    assert.ok(ret.yMin > fn.yMin + 5, 'return 42 is on a line below');
    assert.ok(Math.abs(ret.xMin - fn.xMin - 4 * 0.6 * 12) < 1, `indented by four spaces: ${fn.xMin} → ${ret.xMin}`);
    // The nested list is indented further than the outer one; the blockquote is indented.
    assert.ok(find(all, 'North').xMin > find(all, 'Sales').xMin + 10);
    assert.ok(find(all, 'Quality').xMin > find(all, 'Revenue').xMin + 10);
    // The table's cells of one row share a line.
    assert.ok(Math.abs(find(all, 'Widgets').yMin - find(all, '1200').yMin) < 0.5);
    // Headings are bigger than the body text (h1 2x, h2 1.5x of 12 pt).
    const height = (w: Word) => w.yMax - w.yMin;
    assert.ok(height(find(all, 'Quarterly')) > 1.9 * height(find(all, 'Revenue')));
    assert.ok(height(find(all, 'Highlights')) > 1.4 * height(find(all, 'Revenue')));
  });

  test('http, https and mailto hrefs become link annotations; javascript: and relative ones stay plain text', async () => {
    const pdf = await render(
      '<p><a href="https://example.com/a?b=1">web</a> <a href="mailto:team@example.com">mail</a> ' +
        '<a href="javascript:alert(1)">script</a> <a href="/relative">relative</a> <a href="file:///etc/passwd">file</a> <a>none</a></p>',
    );
    await qpdfCheck(pdf);
    assert.deepEqual(linkTargets(pdf).sort(), ['https://example.com/a?b=1', 'mailto:team@example.com']);
    assert.equal((Buffer.from(pdf).toString('latin1').match(/\/Subtype \/Link/g) ?? []).length, 2);
    assert.match(await pdfToText(pdf), /web mail script relative file none/);

    const only = await render('<p><a href="javascript:alert(document.cookie)">click</a></p>');
    assert.deepEqual(linkTargets(only), []);
    assert.ok(!Buffer.from(only).toString('latin1').includes('/Link'), 'no link annotation at all');
  });

  test('script, style and other hidden content never appear, and nothing is fetched', async (t) => {
    const requests: string[] = [];
    const trap: Server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => trap.close(() => resolve())));
    const url = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
    const pdf = await render(`
      <p>visible one</p>
      <script>document.write("SCRIPTTEXT")</script><script src="${url}/script.js"></script>
      <style>p { color: red } /* STYLETEXT */</style>
      <link rel="stylesheet" href="${url}/style.css">
      <noscript>NOSCRIPTTEXT</noscript><template>TEMPLATETEXT</template>
      <iframe src="${url}/frame">IFRAMETEXT</iframe><object data="${url}/object">OBJECTTEXT</object><embed src="${url}/embed">
      <svg><text>SVGTEXT</text></svg><textarea>TEXTAREATEXT</textarea>
      <img src="${url}/image.png" alt="ALTTEXT"><p style="background: url(${url}/bg.png)">visible two</p>
      <custom-element>visible three</custom-element>`);
    await qpdfCheck(pdf);
    const text = await pdfToText(pdf);
    assertInOrder(text, ['visible one', 'visible two', 'visible three']);
    for (const hidden of ['SCRIPTTEXT', 'STYLETEXT', 'NOSCRIPTTEXT', 'TEMPLATETEXT', 'IFRAMETEXT', 'OBJECTTEXT', 'SVGTEXT', 'TEXTAREATEXT', 'ALTTEXT']) {
      assert.ok(!text.includes(hidden), `${hidden} is not shown`);
    }
    assert.ok(!text.includes('color: red'));
    assert.deepEqual(requests, [], 'no request reached the server');
  });

  test('unclosed tags, implied tbody and entities are read as a browser reads them', async () => {
    const pdf = await render('<p>one &amp; only<p>two<ul><li>apple<li>pear</ul><table><tr><td>c1<td>c2<tr><td>c3<td>c4</table><p>tail &lt;end&gt;');
    await qpdfCheck(pdf);
    const text = await pdfToText(pdf);
    assertInOrder(text, ['one & only', 'two', 'apple', 'pear', 'c1', 'c2', 'c3', 'c4', 'tail <end>']);
    const { words: all } = await words(pdf);
    // One paragraph each: "two" starts a new line below "one".
    assert.ok(find(all, 'two').yMin > find(all, 'one').yMin);
    // A table (with the tbody parse5 implies): c1 and c2 on one row, c3 below c1 in the same column.
    assert.ok(Math.abs(find(all, 'c1').yMin - find(all, 'c2').yMin) < 0.5);
    assert.ok(find(all, 'c2').xMin > find(all, 'c1').xMax);
    assert.ok(find(all, 'c3').yMin > find(all, 'c1').yMax);
    assert.ok(Math.abs(find(all, 'c3').xMin - find(all, 'c1').xMin) < 0.5);
  });

  test('whitespace collapses as in HTML, but not in pre', async () => {
    const pdf = await render('<p>  spaced\n\n   out\twords  </p><p>line<br>break</p><pre>a    b\n\n  c</pre><p>soft&shy;hyphen\u0007</p>');
    const text = await pdfToText(pdf, true);
    assert.match(text, /spaced out words/);
    assert.match(text, /softhyphen/, 'soft hyphens and control characters are not drawn');
    assert.match(text, /line\s*\n\s*break/);
    const { words: all } = await words(pdf);
    // pre: four spaces between a and b (Courier at 12 pt: 7.2 pt a character), and a blank line before c.
    assert.ok(Math.abs(find(all, 'b').xMin - find(all, 'a').xMin - 5 * 7.2) < 0.5);
    assert.ok(find(all, 'c').yMin - find(all, 'b').yMin > 2 * 12);
  });

  test('a long document spans pages without writing below the bottom margin', async () => {
    const section = (n: number) =>
      `<h2>Section ${n}</h2><p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(12)}</p>` +
      `<blockquote>${'A quoted sentence that goes on. '.repeat(10)}</blockquote><ul><li>point ${n}a</li><li>point ${n}b</li></ul>`;
    const pdf = await render(Array.from({ length: 40 }, (_, i) => section(i + 1)).join('') + '<p>FINAL</p>');
    await qpdfCheck(pdf);
    assert.ok(Number((await pdfInfo(pdf)).Pages) > 3);
    const { words: all, pageHeight } = await words(pdf);
    for (const word of all) assert.ok(word.yMax <= pageHeight - 50 + 1, `"${word.text}" on page ${word.page} ends at ${word.yMax}, below the margin`);
    assertInOrder(await pdfToText(pdf), ['Section 1', 'point 1a', 'Section 20', 'point 40b', 'FINAL']);
  });

  test('a long pre line wraps inside the box, other lines stay as written', async () => {
    const pdf = await render(`<pre>short\n${'x'.repeat(200)}\nend</pre>`);
    const { words: all, pageWidth } = await words(pdf);
    for (const word of all) assert.ok(word.xMax <= pageWidth - 50 + 0.5, `"${word.text.slice(0, 10)}" ends at ${word.xMax}`);
    const xs = all.filter((w) => /^x+$/.test(w.text));
    assert.ok(xs.length >= 2, 'the long line is wrapped');
    assert.equal(xs.reduce((sum, w) => sum + w.text.length, 0), 200);
  });

  test('thead rows repeat on every page of a long table', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `<tr><td>row${i}</td><td>${i * 3}</td></tr>`).join('');
    const pdf = await render(`<table><thead><tr><th>HeadName</th><th>HeadValue</th></tr></thead><tbody>${rows}</tbody></table>`);
    await qpdfCheck(pdf);
    const { words: all } = await words(pdf);
    const pages = Math.max(...all.map((w) => w.page));
    assert.ok(pages >= 2);
    for (let page = 1; page <= pages; page++) assert.ok(all.some((w) => w.page === page && w.text === 'HeadName'), `header on page ${page}`);
    assertInOrder(await pdfToText(pdf), ['row0', 'row59', 'row119']);
  });

  test('colspan spans columns', async () => {
    const pdf = await render('<table><tr><td>left</td><td>right</td></tr><tr><td colspan="2">spanning both columns with a sentence long enough to pass the first</td></tr></table>');
    const { words: all } = await words(pdf);
    const first = find(all, 'spanning');
    const last = find(all, 'first');
    assert.ok(Math.abs(first.yMin - last.yMin) < 0.5, 'one line');
    assert.ok(last.xMax > find(all, 'right').xMin, 'the spanning cell runs under the second column');
  });

  test('colspan is clamped to the columns a table has left, 100 in all', async () => {
    // 4.4 KB: 200 cells of colspan 1000 made 200,000 columns, and every row completed to them ran the worker out of memory.
    const html = `<table><tr>${'<td colspan=1000>x'.repeat(200)}</tr>${'<tr><td>y</tr>'.repeat(50)}</table>`;
    const started = performance.now();
    const text = await pdfToText(await render(html));
    assert.ok(performance.now() - started < 5_000, 'within seconds');
    assert.equal(text.match(/\bx\b/g)?.length, 1, 'the first cell takes every column; the rest are past the last one');
    assert.equal(text.match(/\by\b/g)?.length, 50, text);
  });

  test('tags named like Object.prototype members are inline elements, and no NaN reaches the page', async () => {
    // <constructor> found Object's constructor as a heading size: `/F2 NaN Tf` in the stream, and "after" was lost.
    const pdf = await render('<p>before</p><constructor>hello world</constructor><p>after</p><p style="color: constructor">end</p>');
    assertInOrder(await pdfToText(pdf), ['before', 'hello world', 'after', 'end']);
    assert.doesNotMatch(Buffer.from(pdf).toString('latin1'), /NaN/);
    await qpdfCheck(pdf);
  });

  test('list numbers are clamped to a million, not cut to their first nine digits', async () => {
    const text = await pdfToText(await render('<ol start="999999999999"><li>big</li></ol><ol start="-99999999999"><li>small</li></ol><ol><li value="12345678">valued</li></ol>'));
    assert.match(text, /^1000000\.\s+big$/m);
    assert.match(text, /^-1000000\.\s+small$/m);
    assert.match(text, /^1000000\.\s+valued$/m);
  });

  test('at most 1,000 distinct images a document: one more is 422 TOO_LARGE on the html field', async () => {
    // Each image costs a decode however small: 5,000 distinct 1 x 1 PNGs took 5.3 s.
    const images = Array.from({ length: 1001 }, (_, i) => `<img src="data:image/png;base64,${onePixelPng(i)}">`).join('');
    const found = await problem({ operations: [{ type: 'add_html', html: images }] });
    assert.equal(found.errors?.[0]?.field, 'operations[0].html');
    assert.equal(found.errors?.[0]?.code, 'TOO_LARGE');
    assert.match(found.errors?.[0]?.message ?? '', /1000 distinct images/);
  });

  test('hostile nesting gives a bounded result quickly, without a crash', async () => {
    const started = performance.now();
    const deep = await render(`${'<div>'.repeat(10_000)}deep text${'</div>'.repeat(10_000)}`);
    assert.match(await pdfToText(deep), /deep text/);
    const mixed = await render(`${'<blockquote><ul><li><b>'.repeat(3_000)}inner words`);
    assert.match(await pdfToText(mixed), /inner words/);
    assert.ok(performance.now() - started < 10_000, 'both within seconds');

    const elements = await problem({ operations: [{ type: 'add_html', html: '<i>'.repeat(250_000) }] });
    assert.equal(elements.errors?.[0]?.field, 'operations[0].html');
    assert.equal(elements.errors?.[0]?.code, 'TOO_LONG');
  });

  test('text-align, color, font-size, font-weight and font-style take effect', async () => {
    const pdf = await render(
      '<p style="text-align: left">leftword</p><p style="text-align:center">centerword</p><p style="TEXT-ALIGN: right !important">rightword</p>' +
        '<p align="center">legacycenter</p>' +
        '<p style="color: #f00">redword</p><p style="color: navy">navyword</p><p style="color: rgb(0, 128, 0)">greenword</p>' +
        '<p style="font-size: 24px">pxword</p><p style="font-size: 20pt">ptword</p>' +
        '<p><span style="font-weight: 700">heavy</span> <span style="font-style: italic">slanted</span> <span style="font-size: nonsense; color: bogus">ignored</span></p>',
    );
    await qpdfCheck(pdf);
    const { words: all, pageWidth } = await words(pdf);
    assert.ok(Math.abs(find(all, 'leftword').xMin - 50) < 0.5);
    const center = find(all, 'centerword');
    assert.ok(Math.abs((center.xMin + center.xMax) / 2 - pageWidth / 2) < 1, 'centred');
    const legacy = find(all, 'legacycenter');
    assert.ok(Math.abs((legacy.xMin + legacy.xMax) / 2 - pageWidth / 2) < 1, 'align attribute centres');
    assert.ok(Math.abs(find(all, 'rightword').xMax - (pageWidth - 50)) < 0.5, 'right-aligned');

    const content = Buffer.from(pdf).toString('latin1');
    assert.match(content, /^1 0 0 rg$/m, 'red text');
    assert.match(content, /^0 0 0\.5 rg$/m, 'navy text');
    assert.match(content, /^0 0\.5 0 rg$/m, 'green text');
    // 24 px is 18 pt; 20 pt is 20 pt.
    assert.match(content, / 18 Tf$/m);
    assert.match(content, / 20 Tf$/m);
    const fonts = await withFile(pdf, async (path) => (await run('pdffonts', [path])).stdout);
    assert.match(fonts, /Helvetica-Bold/);
    assert.match(fonts, /Helvetica-Oblique/);
    assert.match(await pdfToText(pdf), /heavy slanted ignored/);
  });

  test('base_size sets body text and headings scale from it; set_font applies', async () => {
    const response = await postJson(s.base, '/api/v1/render', {
      output: { compress: false },
      operations: [
        { type: 'set_font', family: 'Times', size: 9 },
        { type: 'add_html', html: '<h1>Title</h1><p>body</p>' },
        { type: 'add_html', html: '<h1>Big</h1><p>text</p>', base_size: 14 },
      ],
    });
    assert.equal(response.status, 200);
    const content = Buffer.from(await response.arrayBuffer()).toString('latin1');
    assert.match(content, / 18 Tf$/m, 'h1 at 2 x 9');
    assert.match(content, / 9 Tf$/m);
    assert.match(content, / 28 Tf$/m, 'h1 at 2 x 14');
    assert.match(content, / 14 Tf$/m);
    assert.match(content, /Times-Bold/);
  });

  test('img with a data: URI is drawn at its width and height; other sources are skipped', async () => {
    const pdf = await render(
      `<p>before</p><img src="data:image/png;base64,${PNG}" width="200" height="100">` +
        `<img src="https://example.com/x.png"><img src="x.png"><img src="data:image/svg+xml;base64,PHN2Zy8+"><p>after</p>`,
    );
    await qpdfCheck(pdf);
    const list = await withFile(pdf, async (path) => (await run('pdfimages', ['-list', path])).stdout);
    assert.equal(list.split('\n').filter((line) => /^\s*\d+\s+\d+\s+image\s/.test(line)).length, 1, list);
    // 200 x 100 px are 150 x 75 pt: "after" starts at least 75 pt below "before".
    const { words: all } = await words(pdf);
    assert.ok(find(all, 'after').yMin - find(all, 'before').yMax >= 75);
    assert.match(Buffer.from(pdf).toString('latin1'), /q 150 0 0 75 /);
  });

  test('broken image data and missing glyphs are 422 on the html field', async () => {
    const image = await problem({ operations: [{ type: 'add_html', html: '<img src="data:image/png;base64,@@not base64@@">' }] });
    assert.equal(image.errors?.[0]?.field, 'operations[0].html');
    assert.equal(image.errors?.[0]?.code, 'INVALID_IMAGE');
    const corrupt = await problem({ operations: [{ type: 'add_text', text: 'x' }, { type: 'add_html', html: '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAA==">' }] });
    assert.equal(corrupt.errors?.[0]?.field, 'operations[1].html');
    const glyphs = await problem({ operations: [{ type: 'add_html', html: '<p>Hieroglyphs \u{13000}\u{13001}</p>' }] });
    assert.equal(glyphs.errors?.[0]?.field, 'operations[0].html');
    assert.equal(glyphs.errors?.[0]?.code, 'UNSUPPORTED_CHARACTERS');
  });

  test('the operation is validated', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ type: 'add_html' }, 'operations[0].html', 'REQUIRED'],
      [{ type: 'add_html', html: 5 }, 'operations[0].html', 'INVALID_TYPE'],
      [{ type: 'add_html', html: 'x'.repeat(2_000_001) }, 'operations[0].html', 'TOO_LONG'],
      [{ type: 'add_html', html: 'x', base_size: 0 }, 'operations[0].base_size', 'OUT_OF_RANGE'],
      [{ type: 'add_html', html: 'x', css: 'p{}' }, 'operations[0].css', 'UNKNOWN_FIELD'],
    ];
    for (const [op, field, code] of cases) {
      const found = await problem({ operations: [op] });
      assert.equal(found.errors?.[0]?.field, field, JSON.stringify(found.errors));
      assert.equal(found.errors?.[0]?.code, code);
    }
  });

  test('empty and whitespace-only HTML render a blank page', async () => {
    const pdf = await render('  \n <!-- only a comment --> ');
    await qpdfCheck(pdf);
    assert.equal(Number((await pdfInfo(pdf)).Pages), 1);
    assert.equal((await pdfToText(pdf)).trim(), '');
  });
});
