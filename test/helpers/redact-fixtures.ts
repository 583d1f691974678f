// Documents for POST /api/v1/redact, built with pdf-lib so each holds
// exactly what a redaction must take out: text in a standard font and in an
// embedded Type0 font (glyph ids in the stream, found only through its
// ToUnicode map), a form XObject drawn on two pages, an image, a vector
// rectangle, a link and a form field, filled form fields and a comment
// whose text is only in annotations, and an incremental update whose
// earlier revision held text the current one does not show. Plus readers
// that look for a string everywhere in a file: every stream inflated
// (object streams included), every content string decoded through every
// ToUnicode map. Test code only.
import { readFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFString, StandardFonts, degrees, rgb, type PDFPage } from '@cantoo/pdf-lib';
import * as fontkit from 'fontkit';
import sharp from 'sharp';
import { DEJAVU_SANS } from './font-tools.js';

export const SECRET_NAME = 'John Smith';
export const SSN = '123-45-6789';
export const TYPE0_SECRET = 'Zyxwv Quanta';

/** Page 1: two Helvetica lines and a DejaVu (Type0) line; page 2: a Helvetica line. Letter size. */
export async function textDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit as never);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const dejavu = await doc.embedFont(await readFile(DEJAVU_SANS), { subset: true });
  const page = doc.addPage([612, 792]);
  page.drawText(`Name: ${SECRET_NAME}, SSN ${SSN} end.`, { x: 50, y: 700, font: helvetica, size: 14 });
  page.drawText('Second line stays here.', { x: 50, y: 680, font: helvetica, size: 14 });
  page.drawText(`Before ${TYPE0_SECRET} after`, { x: 50, y: 640, font: dejavu, size: 14 });
  doc.addPage([612, 792]).drawText(`Page two also names ${SECRET_NAME} once.`, { x: 50, y: 700, font: helvetica, size: 12 });
  doc.setTitle(`Report on ${SECRET_NAME}`);
  doc.setAuthor(SECRET_NAME);
  return doc.save();
}

/** One line of Courier 4 pt per entry, from the top of a letter page. */
export async function linesDocument(lines: readonly string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Courier);
  const page = doc.addPage([612, 792]);
  lines.forEach((line, i) => page.drawText(line, { x: 20, y: 770 - i * 12, font, size: 4 }));
  return doc.save();
}

/**
 * Page 1: one text object that spaces its glyphs the hard ways (character
 * and word spacing, horizontal scaling, TJ adjustments, a jump back and
 * forth inside one TJ) around the numbers 4711 and 98765; page 2, rotated
 * 90 degrees, says "Rotated SECRET7 page"; page 3 shows "Tagged ALTSECRET"
 * in a marked-content sequence whose /ActualText is "ALTSECRET".
 */
export async function spacedDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const name = page.node.newFontDictionary('F', font.ref).asString().slice(1);
  drawRaw(doc, page, `BT /${name} 12 Tf 1.5 Tc 3 Tw 110 Tz 50 700 Td [(Invoice No) -250 (.) 400 ( 4711 ) -3000 (total) 6000 (back) -6000 ( 98) 120 (765 end)] TJ ET`);
  const rotated = doc.addPage([612, 792]);
  rotated.setRotation(degrees(90));
  rotated.drawText('Rotated SECRET7 page', { x: 100, y: 300, font, size: 14 });
  const tagged = doc.addPage([612, 792]);
  const tag = tagged.node.newFontDictionary('F', font.ref).asString().slice(1);
  drawRaw(doc, tagged, `/Span << /ActualText (ALTSECRET) /MCID 0 >> BDC BT /${tag} 12 Tf 50 700 Td (Tagged ALTSECRET) Tj ET EMC`);
  return doc.save();
}

/** A form drawing a form 20 times, six levels deep: 64 million drawing operations in a file of a few kilobytes. */
export async function formBombDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  let inner = doc.context.register(doc.context.flateStream('BT /F1 12 Tf 0 0 Td (x) Tj ET', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 612, 792], Resources: { Font: { F1: font.ref } } }));
  for (let level = 0; level < 6; level++) {
    inner = doc.context.register(doc.context.flateStream('/X Do '.repeat(20), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 612, 792], Resources: { XObject: { X: inner } } }));
  }
  const page = doc.addPage([612, 792]);
  const name = page.node.newXObject('Bomb', inner).asString().slice(1);
  drawRaw(doc, page, `/${name} Do`);
  return doc.save();
}

/** "Locked LOCKSECRET text", encrypted with `userPassword` ("pw"; empty: opens without one) and the owner password "owner-pw". */
export async function encryptedDocument(userPassword = 'pw'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText('Locked LOCKSECRET text', { x: 50, y: 700, font, size: 14 });
  doc.encrypt({ userPassword, ownerPassword: 'owner-pw' });
  return doc.save();
}

/** One form XObject ("Stamp FORMSECRET here") drawn on page 1 at y 700 and on page 2 at y 500. */
export async function formDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const first = doc.addPage([612, 792]);
  const second = doc.addPage([612, 792]);
  const fontName = 'F1';
  const content = `BT /${fontName} 12 Tf 0 0 Td (Stamp FORMSECRET here) Tj ET`;
  const form = doc.context.register(
    doc.context.flateStream(content, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, -5, 300, 20],
      Resources: { Font: { [fontName]: font.ref } },
    }),
  );
  for (const [page, y] of [[first, 700], [second, 500]] as [PDFPage, number][]) {
    const name = page.node.newXObject('Stamp', form);
    drawRaw(doc, page, `q 1 0 0 1 50 ${y} cm /${name.asString().slice(1)} Do Q`);
  }
  return doc.save();
}

/** A 100 x 100 image of four coloured quadrants drawn at (100, 400) to (300, 600) in PDF space, a vector square and a link and a text field inside (300, 100)-(400, 200) top-left coordinates. */
export async function mixedDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const pixels = Buffer.alloc(100 * 100 * 3);
  for (let y = 0; y < 100; y++) {
    for (let x = 0; x < 100; x++) {
      const at = (y * 100 + x) * 3;
      const colour = y < 50 ? (x < 50 ? [255, 0, 0] : [0, 255, 0]) : x < 50 ? [0, 0, 255] : [255, 255, 0];
      pixels.set(colour, at);
    }
  }
  const png = await sharp(pixels, { raw: { width: 100, height: 100, channels: 3 } }).png().toBuffer();
  const image = await doc.embedPng(png);
  page.drawImage(image, { x: 100, y: 400, width: 200, height: 200 });
  // Top-left (300, 100)-(400, 200) is PDF (300, 592)-(400, 692).
  page.drawRectangle({ x: 320, y: 612, width: 40, height: 40, color: rgb(0.1, 0.2, 0.3) });
  page.drawRectangle({ x: 250, y: 640, width: 300, height: 4, color: rgb(0.4, 0.5, 0.6) });
  const link = doc.context.register(
    doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [310, 660, 390, 680], Border: [0, 0, 0], A: { S: 'URI', URI: PDFString.of('mailto:hidden@example.com') } }),
  );
  page.node.addAnnot(link);
  const keptLink = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 50, 150, 70], Border: [0, 0, 0], A: { S: 'URI', URI: PDFString.of('https://example.com/kept') } }));
  page.node.addAnnot(keptLink);
  const form = doc.getForm();
  const inside = form.createTextField('inside');
  inside.setText('field value');
  inside.addToPage(page, { x: 310, y: 600, width: 80, height: 20 });
  const outside = form.createTextField('outside');
  outside.setText('other value');
  outside.addToPage(page, { x: 50, y: 100, width: 120, height: 20 });
  return doc.save();
}

/**
 * Text that only annotations hold, none of it in the page's content (which
 * says "Applicant form" at the top): a text field `name` filled with
 * "John Smith 123-45-6789" (its appearance shows it); a FreeText comment
 * whose appearance and /Contents say "Note on John Smith"; a field `stale`
 * whose /V is "123-45-6789" while its appearance draws nothing; a field
 * `reset` showing "blank" whose /DV is "John Smith"; and a field `other`
 * filled with "kept value", which matches nothing. Letter size, every
 * annotation below y 600 (top-left y 192 and down).
 */
export async function annotatedFormDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Applicant form', { x: 50, y: 740, font: helvetica, size: 14 });
  const form = doc.getForm();
  const fields: [string, string, number][] = [['name', `${SECRET_NAME} ${SSN}`, 560], ['stale', SSN, 520], ['reset', 'blank', 480], ['other', 'kept value', 440]];
  for (const [name, value, y] of fields) {
    const field = form.createTextField(name);
    field.setText(value);
    field.addToPage(page, { x: 50, y, width: 300, height: 24, font: helvetica });
  }
  form.updateFieldAppearances(helvetica);
  const widget = (name: string) => form.getTextField(name).acroField.getWidgets()[0]?.dict as PDFDict;
  // `stale`: an appearance that draws nothing, as one written before the value changed may.
  widget('stale').set(PDFName.of('AP'), doc.context.obj({ N: doc.context.register(doc.context.flateStream('', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 300, 24] })) }));
  form.getTextField('reset').acroField.dict.set(PDFName.of('DV'), PDFString.of(SECRET_NAME));
  const note = `Note on ${SECRET_NAME}`;
  const appearance = doc.context.register(
    doc.context.flateStream(`BT /Helv 12 Tf 4 6 Td (${note}) Tj ET`, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 250, 24], Resources: { Font: { Helv: helvetica.ref } } }),
  );
  page.node.addAnnot(
    doc.context.register(
      doc.context.obj({ Type: 'Annot', Subtype: 'FreeText', Rect: [50, 380, 300, 404], Contents: PDFString.of(note), DA: PDFString.of('/Helv 12 Tf 0 g'), F: 4, AP: { N: appearance } }),
    ),
  );
  return doc.save({ updateFieldAppearances: false });
}

/**
 * A one-page document saved, then changed by an incremental update (a new
 * content stream and page object appended, /Prev to the first xref): the
 * first revision's page said "OLDREVISION secret", the current one says
 * "Current text NOWSECRET".
 */
export async function incrementalDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('OLDREVISION secret', { x: 50, y: 700, font, size: 14 });
  doc.setTitle('OLDTITLE');
  const first = Buffer.from(await doc.save({ useObjectStreams: false }));
  const text = first.toString('latin1');
  const pageObject = /(\d+) 0 obj\s*<<\s*\/Type \/Page\b[\s\S]*?endobj/.exec(text);
  if (pageObject === null) throw new Error('no page object');
  const pageNumber = Number(pageObject[1]);
  const size = Number(/\/Size (\d+)/.exec(text)?.[1]);
  const root = /\/Root (\d+ 0 R)/.exec(text)?.[1];
  const startxref = Number(/startxref\s+(\d+)/.exec(text)?.[1]);
  const content = `BT /${/\/(Helvetica-\d+)/.exec(pageObject[0])?.[1]} 14 Tf 50 700 Td (Current text NOWSECRET) Tj ET`;
  const newPage = pageObject[0].replace(/\/Contents (\[[^\]]*\]|\d+ 0 R)/, `/Contents ${size} 0 R`).replace(/endobj$/, 'endobj');
  let update = `\n${size} 0 obj\n<< /Length ${content.length} >>\nstream\n${content}\nendstream\nendobj\n`;
  const pageAt = first.length + update.length;
  update += `${newPage}\n`;
  const contentAt = first.length + 1;
  const xrefAt = first.length + update.length;
  const entry = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n \n`;
  update += `xref\n${pageNumber} 1\n${entry(pageAt)}${size} 1\n${entry(contentAt)}trailer\n<< /Size ${size + 1} /Root ${root} /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([first, Buffer.from(update, 'latin1')]));
}

function drawRaw(doc: PDFDocument, page: PDFPage, operators: string): void {
  const stream = doc.context.register(doc.context.flateStream(operators));
  page.node.addContentStream(stream);
}

/** Every stream of the file inflated where it is Flate (object streams included), and the file's own bytes, as latin1 text. */
export function everyStream(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf);
  const parts = [raw.toString('latin1')];
  const text = parts[0] as string;
  for (const match of text.matchAll(/stream\r?\n/g)) {
    const start = (match.index as number) + match[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) continue;
    try {
      parts.push(inflateSync(raw.subarray(start, end)).toString('latin1'));
    } catch {
      // Not Flate, or not a stream keyword: the raw bytes are already in parts[0].
    }
  }
  return parts.join('\n');
}

/** Strings of `needle` in the encodings a PDF may hold it: as is, UTF-16BE, and both as hex. */
export function encodingsOf(needle: string): string[] {
  const latin = Buffer.from(needle, 'latin1');
  const utf16 = Buffer.from(needle, 'utf16le').swap16();
  return [needle, utf16.toString('latin1'), latin.toString('hex'), latin.toString('hex').toUpperCase(), utf16.toString('hex'), utf16.toString('hex').toUpperCase()];
}

/**
 * Every string operand of every content stream (literal and hex) decoded
 * through every ToUnicode map in the file (one- and two-byte codes), joined:
 * text a font shows by glyph id reads back here as it does in a viewer.
 */
export function throughToUnicode(pdf: Uint8Array): string {
  const text = everyStream(pdf);
  const maps: Map<number, string>[] = [];
  for (const cmap of text.matchAll(/begincmap([\s\S]*?)endcmap/g)) {
    const map = new Map<number, string>();
    const body = cmap[1] as string;
    for (const block of body.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
      for (const [, code = '', unicode = ''] of (block[1] as string).matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) map.set(Number.parseInt(code, 16), utf16(unicode));
    }
    for (const block of body.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
      for (const [, low = '', high = '', unicode = ''] of (block[1] as string).matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) {
        const first = Number.parseInt(unicode, 16);
        for (let code = Number.parseInt(low, 16); code <= Number.parseInt(high, 16); code++) map.set(code, String.fromCharCode(first + code - Number.parseInt(low, 16)));
      }
    }
    maps.push(map);
  }
  // Only the operands of text-showing operators: a string pattern run over a
  // whole file would start inside a font program's bytes and swallow the rest.
  const operands: string[] = [];
  for (const match of text.matchAll(/\[([^\[\]]*)\]\s*TJ|(<[0-9a-fA-F\s]*>|\((?:\\.|[^\\()])*\))\s*(?:Tj|'|")/g)) operands.push(match[1] ?? match[2] ?? '');
  const strings: Buffer[] = [];
  for (const operand of operands) {
    for (const match of operand.matchAll(/<([0-9a-fA-F\s]*)>|\(((?:\\.|[^\\()])*)\)/g)) {
      if (match[1] !== undefined) strings.push(Buffer.from(match[1].replace(/\s/g, ''), 'hex'));
      else strings.push(Buffer.from((match[2] as string).replace(/\\(.)/g, '$1'), 'latin1'));
    }
  }
  const decoded: string[] = [];
  for (const map of maps) {
    for (const bytes of strings) {
      let one = '';
      for (const byte of bytes) one += map.get(byte) ?? '';
      let two = '';
      for (let i = 0; i + 1 < bytes.length; i += 2) two += map.get(bytes.readUInt16BE(i)) ?? '';
      decoded.push(one, two);
    }
  }
  return decoded.join('\n');
}

function utf16(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes.readUInt16BE(i));
  return out;
}
