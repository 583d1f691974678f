// Golden documents for tagged renders (output.tagged): a letter, an invoice
// with a long table, an HTML article with headings, lists, tables, links and
// images, and a document in several scripts. Each is a RenderRequest without
// `output`; the test adds it.
import sharp from 'sharp';

type Request = Record<string, unknown> & { operations: Array<Record<string, unknown>> };

export async function redSquare(): Promise<string> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 0, b: 0 } } }).png().toBuffer();
  return png.toString('base64');
}

export function letter(): Request {
  return {
    metadata: { title: 'Letter to Mr Smith', language: 'en-GB' },
    header: { text: 'ACME Ltd · 1 High Street · Exeter', align: 'right' },
    footer: { text: 'Page {page} of {pages}' },
    operations: [
      { type: 'add_text', text: '24 November 2026', align: 'right' },
      { type: 'add_text', text: 'Dear Mr Smith,', bold: true },
      { type: 'add_text', text: 'Thank you for your order. '.repeat(40) },
      { type: 'add_text', text: 'Our terms are online.', link: 'https://example.com/terms', underline: true },
      { type: 'add_text', text: 'Yours sincerely,' },
      { type: 'add_text', text: 'Ada Lovelace', italic: true },
    ],
  };
}

export function invoice(): Request {
  const rows = Array.from({ length: 90 }, (_, i) => [`Widget ${i + 1}`, String((i % 7) + 1), `${((i % 7) + 1) * 12}.50`]);
  return {
    metadata: { title: 'Invoice 2026-042', language: 'en' },
    footer: { text: 'Invoice 2026-042 · page {page}' },
    operations: [
      { type: 'add_text', text: 'Invoice 2026-042', size: 20, bold: true },
      { type: 'add_table', columns: ['2fr', '1fr', '1fr'], header: ['Item', 'Quantity', 'Price'], rows, zebra: '#f0f0f0', header_fill: '#dddddd' },
      { type: 'add_table', rows: [['Total', '', '4,321.00']], border: { width: 0 } },
    ],
  };
}

export function article(image: string): Request {
  const html =
    '<h1>Annual report</h1><p>Read the <a href="https://example.org/report">full report online</a> or <b>write to us</b>.</p>' +
    '<h2>Highlights</h2><ul><li>Revenue up</li><li>Costs down<ol><li>Energy</li><li>Travel</li></ol></li></ul>' +
    '<blockquote>The best year yet.</blockquote><hr>' +
    '<h2>Figures</h2><table><thead><tr><th>Region</th><th>Sales</th></tr></thead>' +
    '<tbody><tr><td>North</td><td>120</td></tr><tr><th>South</th><td>80</td></tr><tr><td colspan="2">Total 200</td></tr></tbody></table>' +
    `<h3>Chart</h3><p><img src="data:image/png;base64,${image}" alt="Sales by region, North ahead" width="60"></p>` +
    `<img src="data:image/png;base64,${image}" alt="" width="10"><pre>sales = 200</pre>`;
  return {
    metadata: { title: 'Annual report', language: 'en' },
    operations: [{ type: 'add_html', html }, { type: 'add_image', data: image, alt: 'Company logo', width: 40 }, { type: 'add_image', data: image, alt: '', width: 10 }],
  };
}

export function unicode(): Request {
  return {
    metadata: { title: 'Grüße — 多言語', language: 'de' },
    operations: [
      { type: 'add_text', text: 'Grüße aus Köln — Ελληνικά, Русский' },
      { type: 'add_text', text: 'שלום עולם', direction: 'rtl' },
      { type: 'add_text', text: 'สวัสดีครับ ภาษาไทย' },
      { type: 'add_text', text: '日本語のテキストと中文' },
      { type: 'add_html', html: '<h1>हिन्दी</h1><p>नमस्ते <a href="mailto:hello@example.com">दुनिया</a></p>' },
    ],
  };
}
