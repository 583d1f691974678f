// add_html: a fragment of HTML laid out in the flow, from the cursor, in
// the content width. The subset: h1-h6, p, br,
// strong/b, em/i, u, s/strike/del, a (http, https and mailto links become
// link annotations), ul/ol/li, blockquote, pre/code, hr,
// table/thead/tbody/tfoot/tr/th/td (colspan), img with a base64 data: URI,
// and the style attribute's color, font-size, font-weight, font-style,
// text-decoration, text-align and direction, and the dir attribute (also on
// an <html> tag). Other elements show their text;
// scripts, styles, embedded and external content are dropped, and nothing
// is ever fetched.
//
// Text starts from the set_font style at `base_size` (default: the current
// size); headings are sized relative to it. The parse is parse5's (the
// WHATWG algorithm), so markup is read as a browser reads it.
import * as v from 'valibot';
import { fontSize } from '../fields.js';
import { RenderError } from '../errors.js';
import type { OperationType } from '../context.js';
import { buildBlocks } from '../html/build.js';
import { directionOf } from '../html/cascade.js';
import { HtmlLayout } from '../html/layout.js';
import { MAX_ELEMENTS, parseHtml, TooManyElementsError } from '../html/parse.js';

/** Characters of HTML per operation (about 600 pages of prose); larger documents can be sent as several operations. */
export const MAX_HTML_LENGTH = 2_000_000;

const schema = v.strictObject({
  type: v.literal('add_html'),
  html: v.pipe(v.string(), v.maxLength(MAX_HTML_LENGTH)),
  /** Size of body text, in points; headings scale from it. Default: the size set_font last set. */
  base_size: v.optional(fontSize),
});

export const addHtml: OperationType<typeof schema> = {
  schema,
  async run(op, context, at) {
    const field = `${at}.html`;
    const base = { ...context.style, size: op.base_size ?? context.style.size, underline: false, strike: false, link: undefined };
    const { fragment, documentDir } = parse(op.html, field);
    const blocks = buildBlocks(fragment, base, field, directionOf(documentDir));
    const layout = new HtmlLayout(context, field);
    await layout.blocks(blocks, { left: 0, width: context.flow.width });
    layout.finish();
  },
};

function parse(html: string, field: string): ReturnType<typeof parseHtml> {
  try {
    return parseHtml(html);
  } catch (error) {
    if (!(error instanceof TooManyElementsError)) throw error;
    throw new RenderError([{ field, code: 'TOO_LONG', message: `The HTML has more than ${MAX_ELEMENTS} elements; send it as several add_html operations.` }]);
  }
}
