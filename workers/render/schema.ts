// The RenderRequest contract (render spec section 2), validated with valibot.
// Objects are strict: an unknown field is a 422 naming it, because a typo
// that is silently ignored ("colour" for "color") produces a wrong document.
import * as v from 'valibot';
import { STANDARD_FONT_NAMES } from '../lib/pdf.js';
import { PAGE_SIZE_NAMES, canonicalPageSize } from './page-sizes.js';

/** Operation types of the spec that this version renders. */
export const OPERATION_TYPES = ['add_page', 'set_font', 'add_text'] as const;

/** Operation types the spec names that this version does not render yet (README: what is not done). */
export const PLANNED_OPERATION_TYPES = ['add_image', 'add_table', 'add_html'] as const;

/** A point value on a page: generous bounds, finite. A0 landscape is 3370 pt wide. */
const points = (max = 14_400) => v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(max));

const pageSizeName = v.pipe(
  v.string(),
  v.transform(canonicalPageSize),
  v.picklist(PAGE_SIZE_NAMES, `must be one of ${PAGE_SIZE_NAMES.join(', ')} (case-insensitive)`),
);

const orientation = v.picklist(['portrait', 'landscape'], 'must be portrait or landscape');

const color = v.pipe(v.string(), v.regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour such as #1f2937 or #333'));

const fontSize = v.pipe(v.number(), v.finite(), v.minValue(1), v.maxValue(500));

/** The standard 14 fonts by exact name, or the families Helvetica, Times and Courier with bold/italic flags. */
export const FONT_FAMILIES = ['Helvetica', 'Times', 'Courier', 'Symbol', 'ZapfDingbats'] as const;
const fontName = v.picklist(
  [...new Set([...STANDARD_FONT_NAMES, ...FONT_FAMILIES])],
  `must be one of the standard fonts: ${[...new Set([...FONT_FAMILIES, ...STANDARD_FONT_NAMES])].join(', ')}`,
);

const AddPage = v.strictObject({
  type: v.literal('add_page'),
  page_size: v.optional(pageSizeName),
  orientation: v.optional(orientation),
});

const SetFont = v.strictObject({
  type: v.literal('set_font'),
  family: v.optional(fontName),
  bold: v.optional(v.boolean()),
  italic: v.optional(v.boolean()),
  size: v.optional(fontSize),
  color: v.optional(color),
  line_height: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0.5), v.maxValue(5))),
});

const AddText = v.pipe(
  v.strictObject({
  type: v.literal('add_text'),
  text: v.pipe(v.string(), v.maxLength(1_000_000)),
  /** Absolute placement, in points from the page's top-left corner; both or neither. */
  x: v.optional(points()),
  y: v.optional(points()),
  /** Wrap width in points; default: the content width (flowing) or to the right margin (absolute). */
  width: v.optional(v.pipe(points(), v.minValue(1))),
  size: v.optional(fontSize),
  color: v.optional(color),
  align: v.optional(v.picklist(['left', 'center', 'right'], 'must be left, center or right')),
  }),
  v.forward(
    v.partialCheck([['x'], ['y']], (op) => (op.x === undefined) === (op.y === undefined), 'x and y go together: give both for absolute placement, or neither to flow'),
    ['y'],
  ),
);

const Operation = v.variant(
  'type',
  [AddPage, SetFont, AddText],
  (issue) =>
    (PLANNED_OPERATION_TYPES as readonly unknown[]).includes(issue.input)
      ? `${String(issue.input)} is not available in this version; available: ${OPERATION_TYPES.join(', ')}`
      : `must be one of ${OPERATION_TYPES.join(', ')}`,
);

export const RenderRequest = v.strictObject({
  operations: v.pipe(v.array(Operation), v.minLength(1, 'must hold at least one operation'), v.maxLength(100_000)),
  page_size: v.optional(pageSizeName, 'A4'),
  orientation: v.optional(orientation, 'portrait'),
  /** Page margin in points on every side. */
  margin: v.optional(points(1_000), 50),
  output: v.optional(v.strictObject({ compress: v.optional(v.boolean(), true) }), { compress: true }),
});

export type RenderRequest = v.InferOutput<typeof RenderRequest>;
export type Operation = RenderRequest['operations'][number];

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
