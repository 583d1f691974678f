// HTML text into a DOM, by parse5: the WHATWG parsing algorithm, so a
// fragment is read the way a browser reads it (implied <tbody>, unclosed
// <p> and <li>, misnested formatting tags, entities). Nothing is fetched or
// run here: parse5 only builds a tree.
//
// The element count is capped because parse5's DOM costs about 320 bytes an
// element (measured: 400,000 nested <div>s took 127 MB of heap), and a
// worker has 512 MB by default. 2,000,000 characters of "<b>" would be
// 660,000 elements; a real document that long has far fewer.
import { defaultTreeAdapter, parseFragment, type DefaultTreeAdapterMap, type DefaultTreeAdapterTypes } from 'parse5';

export type HtmlNode = DefaultTreeAdapterTypes.ChildNode;
export type HtmlElement = DefaultTreeAdapterTypes.Element;
export type HtmlParent = DefaultTreeAdapterTypes.ParentNode;

export const MAX_ELEMENTS = 200_000;

export class TooManyElementsError extends Error {
  constructor() {
    super(`the HTML has more than ${MAX_ELEMENTS} elements`);
    this.name = 'TooManyElementsError';
  }
}

export interface ParsedHtml {
  readonly fragment: DefaultTreeAdapterTypes.DocumentFragment;
  /** The `dir` of an <html> tag in the text (`<html dir="rtl">`), which a fragment's DOM has no place for. */
  readonly documentDir: string | undefined;
}

/** The fragment's DOM as a <body> would hold it. Throws TooManyElementsError. */
export function parseHtml(html: string): ParsedHtml {
  let elements = 0;
  let documentDir: string | undefined;
  const treeAdapter: typeof defaultTreeAdapter = {
    ...defaultTreeAdapter,
    createElement(tagName, namespaceURI, attrs) {
      // Thrown from inside the parser: parse5 keeps no state between calls, so aborting it is safe.
      if (++elements > MAX_ELEMENTS) throw new TooManyElementsError();
      return defaultTreeAdapter.createElement(tagName, namespaceURI, attrs);
    },
    // An <html> start tag's attributes go to the root element (the WHATWG
    // "in body" rules), which parsing a fragment creates and then drops.
    adoptAttributes(recipient, attrs) {
      if (recipient.tagName === 'html') documentDir ??= attrs.find((attr) => attr.name === 'dir')?.value;
      defaultTreeAdapter.adoptAttributes(recipient, attrs);
    },
  };
  const fragment = parseFragment<DefaultTreeAdapterMap>(html, { treeAdapter });
  return { fragment, documentDir };
}

export function isElement(node: HtmlNode): node is HtmlElement {
  return 'tagName' in node;
}

export function isText(node: HtmlNode): node is DefaultTreeAdapterTypes.TextNode {
  return node.nodeName === '#text';
}

export function attribute(element: HtmlElement, name: string): string | undefined {
  for (const attr of element.attrs) if (attr.name === name) return attr.value;
  return undefined;
}
