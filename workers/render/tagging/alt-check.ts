// What a PDF/UA render (output.tagged true) asks of one operation on its
// own, checked when such a session takes the operation rather than when it renders: a session
// cannot take an operation back, so an image without alternate text found
// at the render would leave it unrenderable. The render checks the same
// again (ops/image.ts, html/layout.ts), with the same codes.
import type { FieldError } from '../../protocol.js';
import { attribute, isElement, parseHtml, type HtmlNode } from '../html/parse.js';
import { DROPPED, HTML_NAMESPACE } from '../html/tags.js';

/** add_image without alt in a PDF/UA render; `field` is the operation's alt. */
export const imageAltRequired = (field: string): FieldError => ({
  field,
  code: 'REQUIRED',
  message: 'a PDF/UA file (output.tagged true, or pdf_a level a: 1a, 2a, 3a) reads out every image: describe it in alt, or give alt "" for a decorative one',
});

/** An <img> without alt in add_html of a PDF/UA render; `field` is the operation's html. */
export const htmlAltRequired = (field: string): FieldError => ({
  field,
  code: 'REQUIRED',
  message: 'an <img> has no alt attribute: a PDF/UA file (output.tagged true, or pdf_a level a: 1a, 2a, 3a) reads out every image, so describe it in alt, or give alt="" for a decorative one',
});

/** The error for an operation (already validated by the render schema) that a PDF/UA render would refuse for a missing alt; `at` prefixes the field. */
export function missingAlt(operation: { readonly type: string } & Record<string, unknown>, at: string): FieldError | undefined {
  if (operation.type === 'add_image' && operation.alt === undefined) return imageAltRequired(`${at}alt`);
  if (operation.type === 'add_html' && typeof operation.html === 'string' && operation.html.includes('<') && hasImageWithoutAlt(operation.html)) return htmlAltRequired(`${at}html`);
  return undefined;
}

/** An <img> without alt that add_html would draw (outside the elements it drops); an oversized fragment is left to the render to refuse. */
function hasImageWithoutAlt(html: string): boolean {
  let parsed;
  try {
    parsed = parseHtml(html);
  } catch {
    return false;
  }
  // Iterative: 10,000 nested elements cost a loop, not a stack overflow.
  const stack: HtmlNode[] = [...parsed.fragment.childNodes];
  while (stack.length > 0) {
    const node = stack.pop() as HtmlNode;
    if (!isElement(node) || node.namespaceURI !== HTML_NAMESPACE || DROPPED.has(node.tagName)) continue;
    if (node.tagName === 'img' && attribute(node, 'src') !== undefined && attribute(node, 'alt') === undefined) return true;
    stack.push(...node.childNodes);
  }
  return false;
}
