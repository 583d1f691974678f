// The render engine's benchmark documents (issue: one-page letter, 10-page
// invoice table, HTML article, Unicode document with a custom font), built
// once so the server and every baseline do exactly the same work.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LETTER, LETTER_JSON } from './documents.js';

const encode = (document: unknown): Buffer => Buffer.from(JSON.stringify(document), 'utf8');

/** Invoice lines: 20 body rows of 5 columns fill an A4 page at 10 pt, so 200 rows make about 10 pages. */
export const INVOICE_ROWS: readonly (readonly string[])[] = Array.from({ length: 200 }, (_, i) => [
  `NWB-${String(10_000 + i)}`,
  `Deep-groove ball bearing ${6200 + (i % 40)}-2RS, sealed, food-grade grease`,
  String(1 + (i % 12)),
  `€ ${(12.5 + (i % 17) * 3.25).toFixed(2)}`,
  `€ ${((1 + (i % 12)) * (12.5 + (i % 17) * 3.25)).toFixed(2)}`,
]);
export const INVOICE_HEADER = ['Item', 'Description', 'Qty', 'Unit price', 'Amount'] as const;

export const INVOICE = encode({
  page_size: 'A4',
  margin: 50,
  footer: { text: 'Invoice 2025-0314 · page {page} of {pages}', align: 'right', size: 8 },
  operations: [
    { type: 'set_font', family: 'Helvetica', bold: true, size: 16 },
    { type: 'add_text', text: 'Invoice 2025-0314' },
    { type: 'set_font', bold: false, size: 10 },
    {
      type: 'add_table',
      columns: [70, '1fr', 35, 65, 70],
      align: ['left', 'left', 'right', 'right', 'right'],
      header: [...INVOICE_HEADER],
      rows: INVOICE_ROWS,
      header_fill: '#e5e7eb',
      zebra: '#f9fafb',
    },
  ],
});

const ARTICLE_SECTION = `
<h2>Why bearings fail early</h2>
<p>Most bearings never reach their <strong>rated life</strong>. The usual causes are <em>contamination</em>,
poor lubrication and misalignment; together they account for <a href="https://example.com/failures">most early failures</a>.</p>
<ul><li>Contamination: dust and water get past worn seals.</li>
<li>Lubrication: too little, too much, or the wrong grease.
  <ul><li>Over-greasing raises the running temperature.</li><li>Mixed greases can separate.</li></ul></li>
<li>Misalignment: shafts and housings that are not true.</li></ul>
<blockquote>A bearing that runs hot is telling you something; listen before it stops talking.</blockquote>
<table><thead><tr><th>Cause</th><th>Share</th><th>First sign</th></tr></thead>
<tbody><tr><td>Contamination</td><td>36%</td><td>Noise</td></tr><tr><td>Lubrication</td><td>34%</td><td>Heat</td></tr>
<tr><td>Misalignment</td><td>16%</td><td>Vibration</td></tr></tbody></table>
<pre><code>inspect(bearing) {
  temperature &lt; 80 °C
  vibration   &lt; 4.5 mm/s
}</code></pre>
<hr>`;

export const ARTICLE = encode({
  page_size: 'A4',
  operations: [
    { type: 'set_font', family: 'Times', size: 11 },
    { type: 'add_html', html: `<h1>Keeping conveyors running</h1>${ARTICLE_SECTION.repeat(3)}<p style="text-align:right">— Maintenance notes, spring edition</p>` },
  ],
});

const dejavu = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/** A font sent as data with every request, as a client with a brand font does. */
const CUSTOM_FONT = readFileSync(join(dejavu, 'DejaVuSerif.ttf')).toString('base64');
const CUSTOM_BOLD = readFileSync(join(dejavu, 'DejaVuSerif-Bold.ttf')).toString('base64');

/** The letter with its fonts replaced by a registered custom family: the same text and layout work. */
export const LETTER_CUSTOM_FONT = encode({
  ...LETTER,
  operations: [
    { type: 'set_font', family: 'Brand', data: CUSTOM_FONT },
    { type: 'set_font', family: 'Brand', bold: true, data: CUSTOM_BOLD },
    ...LETTER.operations.map((op) => ('family' in op ? { ...op, family: 'Brand' } : op)),
  ],
});

/** A Unicode document in the custom font: Latin, Greek and Cyrillic in one text. */
export const UNICODE = encode({
  operations: [
    { type: 'set_font', family: 'Brand', data: CUSTOM_FONT, size: 11 },
    ...Array.from({ length: 12 }, (_, i) => ({
      type: 'add_text',
      text: `${i + 1}. Zoë pays €5 — Привет, мир; Γειά σου, κόσμε; Ærøskøbing, Łódź, İstanbul. Ещё раз: «кавычки» и “quotes”.`,
      align: 'justify',
    })),
  ],
});

export interface EngineDocument {
  readonly name: string;
  readonly body: Buffer;
}

export const ENGINE_DOCUMENTS: readonly EngineDocument[] = [
  { name: 'letter', body: LETTER_JSON },
  { name: 'letter (custom font)', body: LETTER_CUSTOM_FONT },
  { name: 'invoice, 10 pages', body: INVOICE },
  { name: 'HTML article', body: ARTICLE },
  { name: 'Unicode, custom font', body: UNICODE },
];
