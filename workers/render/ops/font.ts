// set_font: the text style for what follows. A family is a standard one
// (Helvetica, Times, Courier, Symbol, ZapfDingbats, or any of the 14
// standard names), or a custom family registered here by sending its
// TrueType/OpenType data; later set_font calls refer to it by name, and
// bold/italic pick the variants registered for it.
import * as v from 'valibot';
import { FontError } from '../../lib/pdf.js';
import { base64Bytes, color, fontSize, RenderError, type OperationType } from '../common.js';
import { standardFamilyOf } from '../fonts.js';

/** Fonts larger than this are refused; CJK fonts are 15-20 MB. */
export const MAX_FONT_BYTES = 32 * 1024 * 1024;

const schema = v.strictObject({
  type: v.literal('set_font'),
  family: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  /** TrueType/OpenType bytes (base64) registering `family` (with the bold/italic given). */
  data: v.optional(base64Bytes(MAX_FONT_BYTES)),
  bold: v.optional(v.boolean()),
  italic: v.optional(v.boolean()),
  size: v.optional(fontSize),
  color: v.optional(color),
  line_height: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0.5), v.maxValue(5))),
});

export const setFont: OperationType<typeof schema> = {
  schema,
  async run(op, context, at) {
    const style = context.style;
    let family = op.family ?? style.family;
    let bold = op.bold ?? style.bold;
    let italic = op.italic ?? style.italic;
    // An exact standard name ("Times-BoldItalic") names a family and a variant.
    const exact = standardFamilyOf(family);
    if (exact !== undefined && family !== exact.family) {
      family = exact.family;
      bold = op.bold ?? exact.bold;
      italic = op.italic ?? exact.italic;
    }
    if (op.data !== undefined) {
      if (exact !== undefined || family in { Helvetica: 1, Times: 1, Courier: 1, Symbol: 1, ZapfDingbats: 1 }) {
        throw new RenderError([{ field: `${at}.family`, code: 'INVALID_VALUE', message: `"${family}" is a standard font; give a custom font another family name` }]);
      }
      try {
        await context.fonts.register({ family, bold, italic }, op.data);
      } catch (error) {
        if (!(error instanceof FontError)) throw error;
        throw new RenderError([{ field: `${at}.data`, code: 'INVALID_FONT', message: error.message }]);
      }
    } else if (!context.fonts.isKnown(family)) {
      throw new RenderError([
        {
          field: `${at}.family`,
          code: 'UNKNOWN_FONT',
          message: `"${family}" is neither a standard font nor a family registered earlier with data`,
        },
      ]);
    }
    context.style = {
      ...style,
      family,
      bold,
      italic,
      size: op.size ?? style.size,
      color: op.color ?? style.color,
      lineHeight: op.line_height ?? style.lineHeight,
    };
  },
};
