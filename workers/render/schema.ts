// The RenderRequest contract (render spec section 2), validated with valibot.
// Objects are strict: an unknown field is a 422 naming it, because a typo
// that is silently ignored ("colour" for "color") produces a wrong document.
import * as v from 'valibot';
import { STANDARD_FONT_NAMES } from '../seams/pdf.js';
import { color, fontSize, orientation, pageSizeName, points } from './fields.js';
import { STANDARD_FAMILY_NAMES } from './fonts.js';
import { OPERATIONS } from './operations.js';

/** Operation types of the spec that this version renders. */
export const OPERATION_TYPES = Object.keys(OPERATIONS) as readonly string[];

type OperationSchema = (typeof OPERATIONS)[keyof typeof OPERATIONS]['schema'];

const Operation = v.variant(
  'type',
  Object.values(OPERATIONS).map((type) => type.schema) as unknown as [OperationSchema, ...OperationSchema[]],
  `must be one of ${OPERATION_TYPES.join(', ')}`,
);

const margin = v.union(
  [
    points(1_000),
    v.strictObject({ top: v.optional(points(1_000)), right: v.optional(points(1_000)), bottom: v.optional(points(1_000)), left: v.optional(points(1_000)) }),
  ],
  'must be a number of points, or an object with top, right, bottom and left',
);

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
const text = (max: number) =>
  v.pipe(v.string(), v.maxLength(max), v.check((value) => !SPOOFING.test(value), 'must not hold control characters, bidi controls or unpaired surrogates'));

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
         * PDF/A-2 (ISO 19005-2) at level b, u or a: embedded fonts in place of the standard 14, an sRGB output
         * intent, XMP with pdfaid, a file ID. Level a is level u tagged (it implies `tagged`).
         */
        pdf_a: v.optional(v.picklist(['2b', '2u', '2a'] as const, 'must be "2b", "2u" or "2a"')),
        /**
         * A tagged PDF (PDF/UA-1, ISO 14289-1): a structure tree with the document's headings, paragraphs,
         * lists, tables, figures and links, everything else marked as artifacts, and embedded fonts.
         * Needs metadata.title and metadata.language, and alt on every image. Default false, but true
         * with pdf_a "2a", whose level A is the logical structure a tagged render writes.
         */
        tagged: v.optional(v.boolean()),
        /** An outline (bookmarks) of the document's headings (add_text's heading, HTML's <h1>-<h6>), shown when the file opens. */
        outline: v.optional(v.boolean(), false),
      }),
      v.forward(
        v.partialCheck(
          [['pdf_a'], ['tagged']],
          (output) => !(output.pdf_a === '2a' && output.tagged === false),
          'PDF/A-2a is a tagged PDF (ISO 19005-2 6.7): leave tagged out or set it true, or ask for pdf_a "2u"',
        ),
        ['tagged'],
      ),
      v.transform((output) => ({ ...output, tagged: output.tagged ?? output.pdf_a === '2a' })),
    ),
    { compress: true, outline: false },
  ),
});

export type RenderRequest = v.InferOutput<typeof RenderRequest>;
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
