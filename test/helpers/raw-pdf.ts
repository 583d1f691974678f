// Small PDFs written byte by byte, for reader tests that need what the render
// engine never writes (render mode 3, /Rotate, damaged cross-references): one
// page per content stream, Helvetica as F1 and Times-Roman as F2.
export interface RawPage {
  readonly content: string;
  readonly rotate?: number;
  readonly width?: number;
  readonly height?: number;
}

export function rawPdf(pages: readonly RawPage[]): Uint8Array {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 5 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  objects[4] = '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>';
  pages.forEach((page, i) => {
    const id = pageIds[i] as number;
    const rotate = page.rotate === undefined ? '' : ` /Rotate ${page.rotate}`;
    objects[id] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width ?? 612} ${page.height ?? 792}]${rotate} ` +
      `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${id + 1} 0 R >>`;
    objects[id + 1] = `<< /Length ${Buffer.byteLength(page.content, 'latin1')} >>\nstream\n${page.content}\nendstream`;
  });
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/**
 * A file of these objects, numbered from 1, with a correct cross-reference
 * table; `trailer` is the trailer's entries besides /Size ("/Root 1 0 R ..."),
 * `afterEof` bytes appended after %%EOF.
 */
export function pdfOfObjects(objects: readonly Buffer[], trailer: string, afterEof = ''): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    length += object.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  parts.push(Buffer.from(`${xref}\ntrailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${length}\n%%EOF\n${afterEof}`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

/** The same file with its startxref pointing nowhere useful, as a truncated download or a bad edit leaves it. */
export function withBrokenStartxref(pdf: Uint8Array): Uint8Array {
  const text = Buffer.from(pdf).toString('latin1');
  return new Uint8Array(Buffer.from(text.replace(/startxref\n\d+/, 'startxref\n17'), 'latin1'));
}

/** The offset the file's last startxref gives. */
function startxrefOf(text: string): number {
  return Number(/startxref\s+(\d+)\s*%%EOF\s*$/.exec(text)?.[1]);
}

/** The same file with bytes that are no entry written over its table's first entries, as a bad transfer or edit leaves it (qpdf: "xref syntax invalid"). */
export function withGarbageInXrefTable(pdf: Uint8Array): Uint8Array {
  const text = Buffer.from(pdf).toString('latin1');
  const firstEntry = text.indexOf('\n', text.indexOf('\n', startxrefOf(text)) + 1) + 1;
  const garbage = 'GARBAGE \x00\x01\x02 GARBAGE';
  return new Uint8Array(Buffer.from(text.slice(0, firstEntry) + garbage + text.slice(firstEntry + garbage.length), 'latin1'));
}

/** The same file with every in-use entry of its table `by` bytes past its object (qpdf: "expected n n obj"); the table itself well formed. */
export function withShiftedXrefOffsets(pdf: Uint8Array, by = 5): Uint8Array {
  const text = Buffer.from(pdf).toString('latin1');
  const xref = startxrefOf(text);
  const table = text.slice(xref).replace(/^(\d{10}) (\d{5}) n/gm, (_, offset: string, gen: string) => `${String(Number(offset) + by).padStart(10, '0')} ${gen} n`);
  return new Uint8Array(Buffer.from(text.slice(0, xref) + table, 'latin1'));
}

/**
 * The file with an incremental update appended (ISO 32000-1 7.5.6): object
 * 1 written again, `freed` marked free, in a new table whose /Prev is the
 * old one. `stale` also moves the old table's entry for `freed` off its
 * object: a sound file still, since the newer section hides that entry.
 */
export function withIncrementalUpdate(pdf: Uint8Array, freed: number, stale = false): Uint8Array {
  let text = Buffer.from(pdf).toString('latin1');
  const prev = startxrefOf(text);
  if (stale) {
    const entry = text.indexOf('\n', text.indexOf('\n', prev) + 1) + 1 + 20 * freed;
    text = `${text.slice(0, entry)}0000000003${text.slice(entry + 10)}`;
  }
  const catalog = /1 0 obj\n([^\n]*)\nendobj/.exec(text)?.[1] ?? '';
  const size = Number(/\/Size (\d+)/.exec(text.slice(prev))?.[1]);
  const objectAt = text.length;
  text += `1 0 obj\n${catalog}\nendobj\n`;
  const xref = text.length;
  text += `xref\n1 1\n${String(objectAt).padStart(10, '0')} 00000 n \n${freed} 1\n0000000000 00001 f \n`;
  text += `trailer\n<< /Size ${size} /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(text, 'latin1'));
}
