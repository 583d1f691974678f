// The document information dictionary (ISO 32000-1 14.3.3) against the XMP
// packet (14.3.2): the pairs ISO 19005-1 6.7.3 requires to agree (Title /
// dc:title, Author / dc:creator, Subject / dc:description, Keywords /
// pdf:Keywords, Creator / xmp:CreatorTool, Producer / pdf:Producer,
// CreationDate / xmp:CreateDate, ModDate / xmp:ModifyDate). A tool that
// edits a file often rewrites one and not the other, so a disagreement is a
// trace of editing, and the dates say when.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { parseXmp, XMP_NAMESPACES } from '../xmp.js';
import { pdfDateIso } from './signatures.js';

export interface MetadataReport {
  readonly producer: string | null;
  readonly creator: string | null;
  readonly title: string | null;
  readonly author: string | null;
  readonly created: string | null;
  readonly modified: string | null;
  /** A metadata stream is present; well_formed false when it does not parse as XMP. */
  readonly xmp: { readonly present: boolean; readonly well_formed: boolean };
  readonly mismatches: readonly { readonly field: string; readonly info: string | null; readonly xmp: string | null }[];
}

const PAIRS = [
  ['Title', XMP_NAMESPACES.dc, 'title', false],
  ['Author', XMP_NAMESPACES.dc, 'creator', false],
  ['Subject', XMP_NAMESPACES.dc, 'description', false],
  ['Keywords', XMP_NAMESPACES.pdf, 'Keywords', false],
  ['Creator', XMP_NAMESPACES.xmp, 'CreatorTool', false],
  ['Producer', XMP_NAMESPACES.pdf, 'Producer', false],
  ['CreationDate', XMP_NAMESPACES.xmp, 'CreateDate', true],
  ['ModDate', XMP_NAMESPACES.xmp, 'ModifyDate', true],
] as const;

export function readMetadata(objects: PdfObjects): MetadataReport {
  const info = objects.dict(objects.trailer.get('Info'));
  const infoText = (key: string): string | null => objects.text(info?.get(key)) ?? null;
  const stream = objects.stream(objects.catalog?.get('Metadata'));
  const bytes = stream?.decoded();
  const packet = bytes === undefined ? undefined : parseXmp(bytes);
  const xmp = packet !== undefined && packet.wellFormed ? packet : undefined;
  const mismatches: { field: string; info: string | null; xmp: string | null }[] = [];
  if (xmp !== undefined) {
    for (const [key, namespace, name, isDate] of PAIRS) {
      const fromInfo = infoText(key);
      const fromXmp = xmp.get(namespace, name)?.text ?? null;
      // Info absent is PDF 2.0's way (14.3.3 deprecates it), not a disagreement.
      if (fromInfo === null) continue;
      const same = isDate ? sameInstant(pdfDateIso(fromInfo), fromXmp) : fromXmp !== null && fromInfo.trim() === fromXmp.trim();
      if (!same) mismatches.push({ field: key, info: fromInfo, xmp: fromXmp });
    }
  }
  return {
    producer: infoText('Producer') ?? xmp?.get(XMP_NAMESPACES.pdf, 'Producer')?.text ?? null,
    creator: infoText('Creator') ?? xmp?.get(XMP_NAMESPACES.xmp, 'CreatorTool')?.text ?? null,
    title: infoText('Title') ?? xmp?.get(XMP_NAMESPACES.dc, 'title')?.text ?? null,
    author: infoText('Author') ?? xmp?.get(XMP_NAMESPACES.dc, 'creator')?.text ?? null,
    created: pdfDateIso(infoText('CreationDate')) ?? isoOrNull(xmp?.get(XMP_NAMESPACES.xmp, 'CreateDate')?.text),
    modified: pdfDateIso(infoText('ModDate')) ?? isoOrNull(xmp?.get(XMP_NAMESPACES.xmp, 'ModifyDate')?.text),
    xmp: { present: stream !== undefined, well_formed: xmp !== undefined },
    mismatches,
  };
}

function sameInstant(fromInfo: string | null, fromXmp: string | null): boolean {
  if (fromInfo === null || fromXmp === null) return fromInfo === fromXmp;
  const xmpTime = Date.parse(fromXmp);
  // XMP dates may omit seconds or the zone (XMP part 1 8.2.1.1): a minute apart is the same moment written differently.
  return !Number.isNaN(xmpTime) && Math.abs(Date.parse(fromInfo) - xmpTime) < 60_000;
}

function isoOrNull(value: string | undefined): string | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}
