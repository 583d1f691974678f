// The bytes an operation carries (an image, an <img> data: URI, a font),
// checked when a session takes the operation rather than when it renders:
// a session cannot take an operation back, so an image or font the render
// refuses would leave the session unrenderable for good (a damaged PNG in
// add_image, an <img src="data:..."> that is not an image, set_font data
// that is not a font were all accepted and then failed every render).
// The checks are the render's own (images.ts, html/image.ts, set_font's
// run), on a throwaway document, with the render's codes; the render checks
// again. What depends on the operations before it (text a later font must
// draw, a registered family) is left to the render, as it cannot be known here.
import type { FieldError } from '../protocol.js';
import { createDocument } from '../seams/pdf.js';
import type { RenderContext } from './context.js';
import { decodeBase64Field, RenderError } from './errors.js';
import { FontBook } from './fonts.js';
import { imageBytes } from './html/image.js';
import { attribute, isElement, parseHtml, type HtmlNode } from './html/parse.js';
import { DROPPED, HTML_NAMESPACE } from './html/tags.js';
import { MAX_IMAGE_BYTES, loadImage } from './images.js';
import { DEFAULT_STYLE } from './engine.js';
import { setFont } from './ops/font.js';

type Operation = { readonly type: string } & Record<string, unknown>;

/** The errors the render would give for this operation's own bytes (fields as in the payload), or undefined. */
export async function preflight(operation: Operation): Promise<FieldError[] | undefined> {
  // `operation` is the render schema's output for it, so it is what the operation's run() takes.
  try {
    if (operation.type === 'add_image' && typeof operation.data === 'string') await checkImage(operation.data);
    else if (operation.type === 'add_html' && typeof operation.html === 'string' && /<img/i.test(operation.html)) await checkHtmlImages(operation.html);
    else if (operation.type === 'set_font' && operation.data !== undefined) await checkFont(operation);
    return undefined;
  } catch (error) {
    if (error instanceof RenderError) return error.errors.map((entry) => ({ ...entry, field: entry.field.replace(/^\./, '') }));
    throw error;
  }
}

async function checkImage(data: string): Promise<void> {
  const bytes = decodeBase64Field(data, MAX_IMAGE_BYTES, 'data', { 'too-large': 'IMAGE_TOO_LARGE', invalid: 'INVALID_FORMAT' });
  await loadImage(await scratch(), bytes, 'data');
}

/** Every <img> add_html would draw (outside the elements it drops), each decoded as the render decodes it. */
async function checkHtmlImages(html: string): Promise<void> {
  let parsed;
  try {
    parsed = parseHtml(html);
  } catch {
    // Too many elements: the render says so (ops/html.ts) with its own code.
    return;
  }
  let context: Pick<RenderContext, 'doc'> | undefined;
  // Iterative: 10,000 nested elements cost a loop, not a stack overflow.
  const stack: HtmlNode[] = [...parsed.fragment.childNodes];
  while (stack.length > 0) {
    const node = stack.pop() as HtmlNode;
    if (!isElement(node) || node.namespaceURI !== HTML_NAMESPACE || DROPPED.has(node.tagName)) continue;
    const src = node.tagName === 'img' ? attribute(node, 'src') : undefined;
    const bytes = src === undefined ? undefined : imageBytes(src, 'html');
    if (bytes !== undefined) await loadImage((context ??= await scratch()), bytes, 'html');
    stack.push(...node.childNodes);
  }
}

/** set_font with data, run as the render runs it (standard family names refused, the font parsed). */
async function checkFont(operation: Operation): Promise<void> {
  const doc = await createDocument({ compress: false });
  const context = { doc, fonts: new FontBook(doc), style: DEFAULT_STYLE } as unknown as RenderContext;
  await setFont.run(operation as unknown as Parameters<typeof setFont.run>[0], context, '');
}

async function scratch(): Promise<Pick<RenderContext, 'doc'>> {
  return { doc: await createDocument({ compress: false }) };
}
