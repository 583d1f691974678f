// The RenderRequest contract (render spec section 2), validated with valibot.
// Objects are strict: an unknown field is a 422 naming it, because a typo
// that is silently ignored ("colour" for "color") produces a wrong document.
import * as v from 'valibot';
import { PDF_A_LEVELS, STANDARD_FONT_NAMES } from '../seams/pdf.js';
import { color, fontSize, orientation, pageSizeName, points } from './fields.js';
import { STANDARD_FAMILY_NAMES } from './fonts.js';
import { OPERATIONS } from './operations.js';
import { objectsRefuseArrays } from '../task/object-shapes.js';

/** Operation types of the spec that this version renders. */
export const OPERATION_TYPES = Object.keys(OPERATIONS) as readonly string[];

type OperationSchema = (typeof OPERATIONS)[keyof typeof OPERATIONS]['schema'];

// Walked here: the request's walk (task/object-shapes.ts) cannot see through the lazy schema below.
const OperationOfType = objectsRefuseArrays(
  v.variant('type', Object.values(OPERATIONS).map((type) => type.schema) as unknown as [OperationSchema, ...OperationSchema[]], `must be one of ${OPERATION_TYPES.join(', ')}`),
);
const NOT_AN_OPERATION = 'must be an object with a type, such as {"type": "add_text", "text": "..."}';
// An operation that is no object at all (5, null, "add_page", []) is a wrong type, not a wrong `type` (the variant's
// INVALID_ENUM): it meets a type schema it is not (valibot's object schemas take arrays), so it fails as INVALID_TYPE.
// Typed as the variant, since any other schema here only ever fails.
const Operation = v.lazy((input) =>
  isPlainObject(input) ? OperationOfType : typeof input === 'string' ? v.number(NOT_AN_OPERATION) : v.string(NOT_AN_OPERATION),
) as unknown as typeof OperationOfType;

function isPlainObject(input: unknown): boolean {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

const marginSides = v.strictObject({ top: v.optional(points(1_000)), right: v.optional(points(1_000)), bottom: v.optional(points(1_000)), left: v.optional(points(1_000)) });
const marginPoints = v.pipe(v.number('must be a number of points, or an object with top, right, bottom and left'), v.finite(), v.minValue(0), v.maxValue(1_000));
// lazy, not union: a union reported {"Top": 10} as "must be a number ..." on margin, not as the unknown field margin.Top.
const margin = v.lazy((input) => (isPlainObject(input) ? marginSides : marginPoints));

/** A header or footer line; `{page}` and `{pages}` are replaced on every page ("Page {page} of {pages}"). */
const furniture = v.strictObject({
  text: v.pipe(v.string(), v.maxLength(1_000)),
  align: v.optional(v.picklist(['left', 'center', 'right'], 'must be left, center or right'), 'center'),
  family: v.optional(v.picklist([...new Set([...STANDARD_FAMILY_NAMES, ...STANDARD_FONT_NAMES])], 'must be a standard font'), 'Helvetica'),
  size: v.optional(fontSize, 9),
  color: v.optional(color),
});

/**
 * Document metadata is shown by viewers (the title in the window bar): no
 * control characters, unpaired surrogates or bidi controls, which could make
 * "report\u202Efdp.exe" read as an innocent name (Trojan Source, CVE-2021-42574).
 */
const SPOOFING = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069\u061C]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;
const ATTACHMENT_RELATIONSHIPS = ['Source', 'Data', 'Alternative', 'Supplement', 'Unspecified'] as const;
/** fx:ConformanceLevel's values (Factur-X 1.0, ZUGFeRD 2.x). */
const FACTUR_X_PROFILES = ['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED', 'XRECHNUNG'] as const;

const text = (max: number) =>
  v.pipe(v.string(), v.maxLength(max), v.check((value) => !SPOOFING.test(value), 'must not hold control characters, bidi controls or unpaired surrogates'));

/** veraPDF's test of an embedded file's /Subtype (PDF/A-3, 6.8-1): type/subtype, as RFC 2046 names them. */
const MIME_TYPE = /^[-\w+.]+\/[-\w+.]+$/;

/** A file embedded in the PDF (output.attachments): an e-invoice's XML, a spreadsheet behind a report. */
const attachment = v.strictObject({
  /** The name readers show and save it as: no path, no control or bidi characters. */
  name: v.pipe(
    text(255),
    v.minLength(1, 'must name the file, e.g. factur-x.xml'),
    v.check((name) => !/[\\/]/.test(name) && name.trim() === name && name !== '.' && name !== '..', 'must be a plain file name, without / or \\ and without spaces at either end'),
  ),
  /** The file's bytes as base64 (read from the raw body, task/binary-fields.ts); bounded by the body cap only. */
  data: v.string(),
  mime_type: v.pipe(v.string(), v.maxLength(255), v.regex(MIME_TYPE, 'must be a MIME type such as text/xml, application/xml or application/pdf')),
  /** How the file relates to the document (ISO 32000-2 14.13, the /AFRelationship PDF/A-3 asks for). */
  relationship: v.picklist(ATTACHMENT_RELATIONSHIPS, `must be one of ${ATTACHMENT_RELATIONSHIPS.join(', ')}`),
  description: v.optional(text(1_000)),
});

export const RenderRequest = v.strictObject({
  // The count is checked before any item, so an oversized list costs one
  // check rather than 100,000 item validations and as many errors.
  operations: v.pipe(
    v.array(v.unknown()),
    v.minLength(1, 'must hold at least one operation'),
    v.maxLength(100_000, 'must hold at most 100000 operations'),
    v.array(Operation),
  ),
  page_size: v.optional(pageSizeName, 'A4'),
  orientation: v.optional(orientation, 'portrait'),
  /** Page margins in points: one number for every side, or per side (default 50 each). */
  margin: v.optional(margin, 50),
  metadata: v.optional(
    v.strictObject({
      title: v.optional(text(1_000)),
      author: v.optional(text(1_000)),
      subject: v.optional(text(1_000)),
      keywords: v.optional(v.pipe(v.array(text(200)), v.maxLength(100))),
      /** BCP 47 language tag, e.g. en-GB (PDF /Lang, read by screen readers). */
      language: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en or en-GB'))),
    }),
  ),
  header: v.optional(furniture),
  footer: v.optional(furniture),
  output: v.optional(
    v.pipe(
      v.strictObject({
        compress: v.optional(v.boolean(), true),
        /**
         * PDF/A (ISO 19005) part 1, 2 or 3 at level b, u (parts 2 and 3) or a: embedded fonts in place of
         * the standard 14, an sRGB output intent, XMP with pdfaid, a file ID; part 1 is PDF 1.4 without
         * transparency, part 3 may carry attachments. Level a is tagged (it implies `tagged` true).
         */
        pdf_a: v.optional(v.picklist(PDF_A_LEVELS, `must be one of ${PDF_A_LEVELS.map((level) => `"${level}"`).join(', ')}`)),
        /**
         * true: a PDF/UA-1 file (ISO 14289-1): a structure tree with the document's headings,
         * paragraphs, lists, tables, figures and links, everything else marked as artifacts, every
         * font embedded, the PDF/UA identification in its XMP; it needs metadata.title and
         * metadata.language and alt on every image. Implied by pdf_a level a (1a, 2a, 3a).
         * "structure": the same structure (a tagged PDF, ISO 32000-1 §14.8) in the fonts the request
         * names, claiming nothing and asking nothing more of the request. false (the default): no
         * structure.
         */
        tagged: v.optional(v.union([v.boolean(), v.literal('structure')], 'must be true, false or "structure"')),
        /** An outline (bookmarks) of the document's headings (add_text's heading, HTML's <h1>-<h6>), shown when the file opens. */
        outline: v.optional(v.boolean(), false),
        /**
         * Files embedded as associated files (catalog /AF): with pdf_a "3b", "3u" or "3a" (PDF/A-3), or
         * without pdf_a; PDF/A-1 forbids embedded files and PDF/A-2 allows only PDF/A ones.
         */
        attachments: v.optional(v.pipe(v.array(attachment), v.maxLength(100, 'must hold at most 100 files'))),
        /**
         * A Factur-X / ZUGFeRD hybrid invoice: the XMP names the attached XML (file_name, one of
         * attachments) and its profile, with the Factur-X extension schema. PDF/A-3 only.
         */
        factur_x: v.optional(
          v.strictObject({
            profile: v.picklist(FACTUR_X_PROFILES, `must be one of ${FACTUR_X_PROFILES.join(', ')}`),
            file_name: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(255)), 'factur-x.xml'),
            version: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}\.\d{1,3}$/, 'must be a version such as 1.0')), '1.0'),
          }),
        ),
      }),
      v.forward(
        v.partialCheck(
          [['pdf_a'], ['tagged']],
          (output) => !(isLevelA(output.pdf_a) && output.tagged !== undefined && output.tagged !== true),
          'PDF/A level A is a tagged PDF (ISO 19005-1 6.8, 19005-2 and -3 6.7), written here as PDF/UA: leave tagged out or set it true, or ask for level b or u',
        ),
        ['tagged'],
      ),
      v.forward(
        v.partialCheck(
          [['pdf_a'], ['attachments']],
          (output) => output.attachments === undefined || output.attachments.length === 0 || output.pdf_a === undefined || output.pdf_a.startsWith('3'),
          'PDF/A-1 forbids embedded files and PDF/A-2 allows only PDF/A files: ask for pdf_a "3b", "3u" or "3a" (PDF/A-3), or leave pdf_a out',
        ),
        ['attachments'],
      ),
      v.forward(
        v.partialCheck(
          [['pdf_a'], ['factur_x']],
          (output) => output.factur_x === undefined || (output.pdf_a !== undefined && output.pdf_a.startsWith('3')),
          'a Factur-X / ZUGFeRD invoice is a PDF/A-3 file: ask for pdf_a "3b", "3u" or "3a"',
        ),
        ['factur_x'],
      ),
      v.forward(
        v.partialCheck(
          [['factur_x', 'file_name'], ['attachments']],
          (output) => output.factur_x === undefined || (output.attachments ?? []).some((file) => file.name === output.factur_x?.file_name),
          'names no file of attachments: attach the invoice XML under this name (factur-x.xml unless given)',
        ),
        ['factur_x', 'file_name'],
      ),
      // `tagged` leaves as the PDF/UA-1 claim; `structure` says whether the file is tagged at all.
      v.transform((output) => {
        const pdfUa = output.tagged === true || isLevelA(output.pdf_a);
        return { ...output, tagged: pdfUa, structure: pdfUa || output.tagged === 'structure' };
      }),
    ),
    { compress: true, outline: false },
  ),
});

export type RenderRequest = v.InferOutput<typeof RenderRequest>;

/** Level A of any part (1a, 2a, 3a): a tagged PDF. */
export function isLevelA(level: string | undefined): boolean {
  return level !== undefined && level.endsWith('a');
}
export type Operation = RenderRequest['operations'][number];
export type Furniture = NonNullable<RenderRequest['header']>;

/** Keys whose values may be whole files in base64 (add_image's and set_font's `data`): read from the raw body (task/binary-fields.ts). */
export const BINARY_FIELDS = ['data'] as const;

/**
 * The spec's published example writes the discriminator as `op` while the
 * contract names it `type`: both are accepted. Returns the input with `op`
 * renamed, without mutating it; both present and different is left for the
 * schema to reject as an unknown field.
 */
export function normalizeAliases(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !Array.isArray((input as { operations?: unknown }).operations)) return input;
  const request = input as { operations: unknown[] };
  return {
    ...request,
    operations: request.operations.map((op) => {
      if (typeof op !== 'object' || op === null || !('op' in op)) return op;
      const { op: alias, ...rest } = op as { op: unknown; type?: unknown };
      if ('type' in rest && rest.type !== alias) return op;
      return { ...rest, type: alias };
    }),
  };
}
