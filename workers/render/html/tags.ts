// The HTML vocabulary add_html knows: which elements are dropped with
// their content, which are blocks, which are headings or preformatted. Any
// other element is inline: its text shows, in its style.

export const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/**
 * Never shown, text included: scripts and styles, metadata, embedded and
 * external content, form controls. (<svg> and <math> are dropped by their
 * namespace.) Nothing they point at is fetched.
 */
export const DROPPED = new Set([
  'script', 'style', 'template', 'noscript', 'iframe', 'frame', 'frameset', 'noframes', 'object', 'embed', 'applet', 'param',
  'link', 'meta', 'base', 'title', 'head', 'canvas', 'audio', 'video', 'source', 'track', 'map', 'area', 'portal',
  'input', 'select', 'textarea', 'datalist', 'dialog',
]);

/** Block containers with no margins or marks of their own (HTML's `display: block` elements). */
export const CONTAINERS = new Set([
  'div', 'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'figure', 'figcaption', 'address', 'details', 'summary',
  'dl', 'dt', 'dd', 'fieldset', 'legend', 'form', 'center', 'hgroup', 'search', 'li', 'caption', 'body', 'html', 'menu',
]);

/**
 * Heading sizes relative to the surrounding text (close to the HTML
 * standard's 2em, 1.5em, 1.17em, 1em, 0.83em, 0.67em, evened out). A Map,
 * not an object: any tag name may come in, an object also answers
 * `constructor`, and <constructor> once wrote NaN font sizes into the
 * content stream.
 */
export const HEADINGS: ReadonlyMap<string, number> = new Map([
  ['h1', 2],
  ['h2', 1.5],
  ['h3', 1.25],
  ['h4', 1.1],
  ['h5', 1],
  ['h6', 0.9],
]);

export const PRE_TAGS = new Set(['pre', 'listing', 'xmp', 'plaintext']);
export const MONOSPACE_TAGS = new Set(['code', 'kbd', 'samp', 'tt', ...PRE_TAGS]);

const OTHER_BLOCKS = new Set(['p', 'hr', 'blockquote', 'ul', 'ol', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);

/** Whether the element flows with the text around it (false for anything that starts a new block). */
export function isInline(tag: string): boolean {
  return !(CONTAINERS.has(tag) || PRE_TAGS.has(tag) || HEADINGS.has(tag) || OTHER_BLOCKS.has(tag));
}
