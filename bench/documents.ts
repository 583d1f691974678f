// The document every render scenario and baseline uses: a realistic one-page
// business letter (letterhead, address block, ten add_text operations, four
// paragraphs that wrap over several lines). One fixed body, so the server and
// every baseline do exactly the same work.

/** Matches the key pattern svc_live_{kid}_{secret}; only ever given to the bench's own server. */
export const BENCH_KEY = 'svc_live_bench1_' + 'b'.repeat(32);

/**
 * The per-client quota is raised so that the rate limiter never answers for
 * the pool (rpm allows at most 9 digits: src/auth/key-entry.ts).
 */
export const BENCH_KEY_ENTRY = `${BENCH_KEY}:bench:enterprise:rpm=100000000`;

const PARAGRAPHS = [
  'Thank you for your order of 14 March. We are writing to confirm that the replacement bearings for the three conveyor ' +
    'lines at your Rotterdam plant have been manufactured, inspected and packed, and that they will leave our warehouse on ' +
    'Friday morning. The carrier has been asked to call your receiving desk one hour before arrival.',
  'As agreed with your maintenance manager, the bearings are supplied with the extended-life seals and the food-grade ' +
    'lubricant specified in your tender. Each crate carries the inspection certificate for its batch, and a consolidated ' +
    'certificate of conformity is enclosed with this letter for your quality records.',
  'The invoice will follow by separate post. Payment terms remain thirty days net from the date of delivery; should you ' +
    'prefer to settle by the new direct-debit arrangement discussed at our last meeting, our accounts team will be glad to ' +
    'send you the mandate form and to answer any questions about it.',
  'If anything in this shipment is not as you expect, please contact me directly on the number below, quoting the order ' +
    'reference at the top of this letter. We appreciate your continued business and look forward to supporting the ' +
    'commissioning of the new line later this year.',
];

export const LETTER = {
  page_size: 'A4',
  margin: 56,
  operations: [
    { type: 'set_font', family: 'Helvetica', bold: true, size: 18, color: '#1f2937' },
    { type: 'add_text', text: 'Northwind Bearings Ltd', align: 'left' },
    { type: 'set_font', bold: false, size: 9, color: '#6b7280' },
    { type: 'add_text', text: 'Unit 4, Riverside Industrial Estate, Leeds LS10 1AB, United Kingdom  |  +44 113 496 0000', x: 56, y: 82 },
    { type: 'set_font', family: 'Times', size: 11, color: '#111827', line_height: 1.35 },
    { type: 'add_text', text: 'Ms. Annelies de Vries\nHead of Procurement\nVan Dijk Food Processing B.V.\nHavenstraat 112\n3011 AB Rotterdam\nThe Netherlands', x: 56, y: 130 },
    { type: 'add_text', text: 'Leeds, 21 March 2025', x: 400, y: 130, width: 139, align: 'right' },
    { type: 'add_text', text: '\n\n\n\n\n\n\n\n\n' },
    { type: 'add_text', text: 'Your order NWB-2025-0314: dispatch of replacement bearings', size: 12 },
    { type: 'add_text', text: '\nDear Ms. de Vries,\n' },
    ...PARAGRAPHS.flatMap((text) => [{ type: 'add_text', text: `${text}\n` }]),
    { type: 'add_text', text: 'Yours sincerely,\n\n\nJames Whitfield\nKey Account Manager, Northwind Bearings Ltd' },
  ],
};

/** The request body, encoded once. */
export const LETTER_JSON: Buffer = Buffer.from(JSON.stringify(LETTER), 'utf8');

/** The letter tagged without the PDF/UA claim (output.tagged "structure", in the standard fonts): the candidate for the default (issue 15). */
export const STRUCTURE_LETTER_JSON: Buffer = Buffer.from(JSON.stringify({ ...LETTER, output: { tagged: 'structure' } }), 'utf8');

/** The letter as a PDF/UA-1 file (output.tagged true), which needs a title and a language and embeds its fonts. */
export const TAGGED_LETTER_JSON: Buffer = Buffer.from(JSON.stringify({ ...LETTER, metadata: { title: 'Dispatch of order NWB-2025-0314', language: 'en-GB' }, output: { tagged: true } }), 'utf8');

/** The letter untagged in the fonts a PDF/UA render uses (PDF/A embeds them as PDF/UA does): the PDF/UA tagging's own cost. */
export const EMBEDDED_LETTER_JSON: Buffer = Buffer.from(JSON.stringify({ ...LETTER, metadata: { title: 'Dispatch of order NWB-2025-0314', language: 'en-GB' }, output: { pdf_a: '2b' } }), 'utf8');

/**
 * The letter in two registered families, 'Brand' and 'Brand Bold', for its
 * regular and bold text (a registered family is one face): what a client
 * with registered fonts sends (bench/pairs.ts registers them on the server;
 * bench/tagged-cost.ts hands the worker their files).
 */
export const REGISTERED_LETTER_JSON: Buffer = (() => {
  let bold = false;
  const operations = LETTER.operations.map((op) => {
    if (op.type !== 'set_font') return op;
    bold = 'bold' in op ? op.bold === true : bold;
    return { ...op, family: bold ? 'Brand Bold' : 'Brand', bold: false };
  });
  return Buffer.from(JSON.stringify({ ...LETTER, operations }), 'utf8');
})();

/** A fresh ArrayBuffer holding a body: a task transfers (neuters) the one it is given. */
export function bodyOf(document: Buffer): ArrayBuffer {
  const copy = new Uint8Array(document.byteLength);
  copy.set(document);
  return copy.buffer;
}

// --- letters whose text varies per request ---------------------------------

const FIRST_NAMES = ['Annelies', 'Jörg', 'Hélène', 'José', 'Zofia', 'Björn', 'Quentin', 'Chiara', 'Łukasz', 'Siobhán', 'Yusuf', 'Ingrid', 'Matthías', 'Kwame', 'Žofie', 'Pádraig'];
const LAST_NAMES = ['de Vries', 'Müller', 'Dubois', 'Núñez', 'Kowalczyk', 'Åkesson', 'Yarborough', 'Fabbri', 'Wójcik', 'Ó Briain', 'Øvergaard', 'Jaxon', 'Çelik', 'Zapata', 'Gąsior', 'Fitzwilliam'];
const CITIES = ['Rotterdam', 'Zürich', 'Kraków', 'Göteborg', 'Québec', 'Ålesund', 'Bilbao', 'Jyväskylä'];
const PRODUCTS = ['replacement bearings', 'hydraulic couplings', 'gear-box seals', 'conveyor belts', 'torque sensors', 'valve actuators', 'ball screws', 'linear guides'];
const EXTRA_PARAGRAPHS = [
  'Quality inspection flagged two crates for a second check of their packing; both passed and will travel with the rest, as your quality team requested by phone on Wednesday.',
  'We have extended the warranty on the units in this shipment to thirty-six months, in view of the delayed delivery of your previous order, at no extra cost to you.',
  'Kindly note our new bank details, effective from the first of next month: the account number changes, while our VAT identification and company registration stay exactly as before.',
  'Jakob Ziegler joins our field service team next quarter and will be your technician for the commissioning visit; he can be reached through the same service desk.',
];

/**
 * The letter with its addressee, city, product, amount, date and the order of
 * its paragraphs (plus one of four extra paragraphs) taken from lists by a
 * counter: each body differs from the others in its text and so in the glyphs
 * its fonts draw and the order they are first drawn in (which a font subset's
 * memo keys on). Measures what a glyph-set memo cannot serve: a service
 * whose documents are not all the same text.
 */
export function varyingLetter(index: number, extra: Record<string, unknown> = {}): Buffer {
  const pick = <T>(list: readonly T[], salt: number): T => list[Math.floor(index / salt) % list.length] as T;
  const name = `${pick(FIRST_NAMES, 1)} ${pick(LAST_NAMES, 3)}`;
  const product = pick(PRODUCTS, 5);
  const paragraphs = [...PARAGRAPHS.map((text) => text.replace('replacement bearings', product).replace('Rotterdam', pick(CITIES, 7))), pick(EXTRA_PARAGRAPHS, 2)];
  for (let i = paragraphs.length - 1; i > 0; i--) {
    const j = (index * 7 + i * 13) % (i + 1);
    [paragraphs[i], paragraphs[j]] = [paragraphs[j] as string, paragraphs[i] as string];
  }
  const amount = ((index * 7919) % 100_000) / 100 + 100;
  const operations = LETTER.operations.flatMap((op): Array<Record<string, unknown>> => {
    if (op.type !== 'add_text') return [op];
    const text = (op as { text: string }).text;
    if (text.startsWith('Ms. Annelies')) return [{ ...op, text: text.replace('Ms. Annelies de Vries', name).replace('Rotterdam', pick(CITIES, 7)) }];
    if (text.startsWith('Leeds, 21')) return [{ ...op, text: `Leeds, ${1 + (index % 28)} March 2025` }];
    if (text.startsWith('Your order')) return [{ ...op, text: `Your order NWB-2025-${String(index % 10_000).padStart(4, '0')}: dispatch of ${product}, EUR ${amount.toFixed(2)}` }];
    if (text.startsWith('\nDear')) return [{ ...op, text: `\nDear ${name},\n` }];
    if (PARAGRAPHS.some((paragraph) => text === `${paragraph}\n`)) return PARAGRAPHS.indexOf(text.slice(0, -1)) === 0 ? paragraphs.map((paragraph) => ({ ...op, text: `${paragraph}\n` })) : [];
    return [op];
  });
  return Buffer.from(JSON.stringify({ ...LETTER, operations, ...extra }), 'utf8');
}
