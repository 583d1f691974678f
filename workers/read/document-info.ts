// The document's Info dictionary and header facts (accelerator contract,
// ParseMetadata), as pdf.js reports them. Strings that are empty in the file
// are null: "no title" and "an empty title" mean the same to a reader.
import { pdfDate, type PdfDocument } from '../seams/pdfjs.js';
import type { DocumentInfo } from './types.js';

interface RawInfo {
  readonly Title?: unknown;
  readonly Author?: unknown;
  readonly Subject?: unknown;
  readonly Keywords?: unknown;
  readonly Creator?: unknown;
  readonly Producer?: unknown;
  readonly CreationDate?: unknown;
  readonly ModDate?: unknown;
  readonly PDFFormatVersion?: unknown;
  readonly IsLinearized?: unknown;
}

export async function documentInfo(document: PdfDocument): Promise<DocumentInfo> {
  const { info } = await document.getMetadata();
  const raw = (info ?? {}) as RawInfo;
  return {
    title: text(raw.Title),
    author: text(raw.Author),
    subject: text(raw.Subject),
    keywords: text(raw.Keywords),
    creator: text(raw.Creator),
    producer: text(raw.Producer),
    createdAt: pdfDate(raw.CreationDate),
    modifiedAt: pdfDate(raw.ModDate),
    pdfVersion: text(raw.PDFFormatVersion),
    isLinearized: raw.IsLinearized === true,
  };
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // Info strings may carry NULs and control characters; JSON keeps them, people do not want them.
  const clean = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').trim();
  return clean === '' ? null : clean;
}
