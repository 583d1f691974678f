// The structure tree of a tagged render (output.tagged), built while the
// operations draw. Operations open elements (P, H1, L/LI, Table/TR/TD,
// Figure, Link...) around what they draw; the page canvas asks `target` which
// element the next text or image belongs to and records a marked-content
// sequence with an MCID in it (marked-content.ts). An artifact as the target
// is content outside the tree (headers, footers, page numbers, repeated
// table headers, decorative images). Paths (rules, borders, fills)
// are always artifacts: every path this engine draws is decoration.

/** A kid: an element, an MCID on the element's page, content on another page, or a link annotation. */
type Kid = Element | number | PendingContent | PendingAnnotation;
const NO_KIDS: readonly Kid[] = Object.freeze([]);

/**
 * A structure element under construction; a page is its canvas until the
 * document knows page numbers. A class with every field
 * set in its constructor, so every element has one shape: a data table
 * makes one per cell, and the canvas, the tagging and pdf-tagged.ts's walk
 * read them by the thousand (object literals spread from their options made
 * a shape for each mix of options, and the reads of them polymorphic).
 */
export class Element {
  #kids: readonly Kid[] = NO_KIDS;
  readonly alt: string | undefined;
  readonly scope: 'Column' | 'Row' | undefined;
  readonly colSpan: number | undefined;
  /** A Link's target, so consecutive pieces of one link share the element. */
  readonly uri: string | undefined;
  /** A Figure's box on its page in PDF space (x1 y1 x2 y2), set by the canvas as it draws the image. */
  bbox: readonly [number, number, number, number] | undefined = undefined;
  /** The page of its first marked content (the element's /Pg): its kids that are numbers are MCIDs there. */
  page: object | undefined = undefined;

  constructor(
    readonly role: string,
    options: ElementOptions = NO_OPTIONS,
  ) {
    this.alt = options.alt;
    this.scope = options.scope;
    this.colSpan = options.colSpan;
    this.uri = options.uri;
  }

  /** Its elements, marked-content sequences and link annotations, in reading order. */
  get kids(): readonly Kid[] {
    return this.#kids;
  }

  /**
   * Appends a kid. The first makes an array of one: most elements (a data
   * table's cells, a paragraph on one page) keep one kid, and an empty
   * array's first push reserves 16 slots (V8 grows a backing store by half
   * plus 16): ~120 KB of the 10-page invoice's ~1,080 KB a render that
   * tagging adds to allocate (the sampling heap profiler, collected objects
   * counted: 5,790 → 5,670 KB, untagged 4,710), and every scavenge of it
   * copies what survives.
   */
  add(kid: Kid): void {
    if (this.#kids === NO_KIDS) this.#kids = [kid];
    else (this.#kids as Kid[]).push(kid);
  }

  /**
   * Gives an element that has none its kids at once, in `kids` itself (a
   * table row its cells, made together): an array of their number, where
   * adding them one by one grows the first's array of one to 17 slots.
   */
  adopt(kids: Element[]): void {
    if (this.#kids !== NO_KIDS) throw new Error(`a ${this.role} element adopting kids already has some`);
    this.#kids = kids;
  }

  /**
   * Makes marked content `mcid` of `page` its own: on its own page a bare
   * MCID, as the file writes it (no object per cell of a data table: ~40
   * bytes each that lived until the save), on another (a paragraph split
   * over a page break) one that names its page, as the file's MCR does.
   */
  addContent(page: object, mcid: number): void {
    this.page ??= page;
    this.add(page === this.page ? mcid : { page, mcid });
  }
}

/** Marked content on another page than its element's first. */
export interface PendingContent {
  readonly page: object;
  readonly mcid: number;
}

export interface PendingAnnotation {
  readonly page: object;
  readonly link: number;
}

export interface ElementOptions {
  readonly alt?: string | undefined;
  readonly scope?: 'Column' | 'Row' | undefined;
  readonly colSpan?: number | undefined;
  readonly uri?: string | undefined;
}

const NO_OPTIONS: ElementOptions = Object.freeze({});

/** Content outside the tree: `Pagination` for what repeats on every page (ISO 32000-1 §14.8.2.2.2), untyped for decoration. */
export interface Artifact {
  readonly artifact: 'Pagination' | undefined;
  /** The element a repeat draws again (a table header cell on a later page): its links' annotations belong to that element's Link. */
  readonly repeats?: Element;
}

export const PAGINATION: Artifact = Object.freeze({ artifact: 'Pagination' });
export const DECORATION: Artifact = Object.freeze({ artifact: undefined });

export interface StructureOptions {
  /** A PDF/UA-1 file (output.tagged): every image needs its alternate text (ISO 14289-1 7.3). */
  readonly pdfUa: boolean;
}

export class Structure {
  readonly root: Element = new Element('Document');
  readonly pdfUa: boolean;
  /** Open elements, innermost last, and artifact spans (nothing drawn inside one joins the tree). */
  readonly #stack: (Element | Artifact)[] = [this.root];

  constructor(options: StructureOptions) {
    this.pdfUa = options.pdfUa;
  }

  /** Where content drawn now belongs: an element, or an artifact. */
  get target(): Element | Artifact {
    return this.#stack[this.#stack.length - 1] as Element | Artifact;
  }

  /** A new element, last kid of the innermost open element, not entered. */
  child(role: string, options?: ElementOptions): Element {
    return this.childOf(this.#container(), role, options);
  }

  /** A new element, last kid of `parent` (a table's row, made when the row is first drawn). */
  childOf(parent: Element, role: string, options?: ElementOptions): Element {
    const element = new Element(role, options);
    parent.add(element);
    return element;
  }

  /** A new element, entered: what is drawn until close() belongs to it. */
  open(role: string, options?: ElementOptions): Element {
    const element = this.child(role, options);
    this.#stack.push(element);
    return element;
  }

  /** Enters an existing element (a list label drawn after its item's first line), or an artifact span. */
  enter(element: Element | Artifact): void {
    this.#stack.push(element);
  }

  /** Leaves what open() or enter() entered. */
  close(): void {
    if (this.#stack.length > 1) this.#stack.pop();
  }

  /**
   * The Link element for a piece of linked text: the innermost element's last
   * kid when it is a Link to the same target (the next word of the link, or
   * its continuation on the next line), else a new one.
   */
  link(uri: string): Element | undefined {
    const target = this.target;
    if ('artifact' in target) {
      // A link drawn again as an artifact (a table header repeated on a later page): its text stays out of the
      // tree, but its annotation, which is real and clickable there, joins the Link of the header the tree has
      // (PDF/UA-1 7.18.1 asks every annotation be in the tree; an OBJR names its own page). Other artifacts have no links.
      return target.repeats === undefined ? undefined : linkWithin(target.repeats, uri);
    }
    const container = this.#container();
    const last = container.kids[container.kids.length - 1];
    if (last instanceof Element && last.role === 'Link' && last.uri === uri) return last;
    // The annotation's /Contents says where the link goes (PDF/UA-1 7.18.5).
    return this.child('Link', { uri, alt: uri.startsWith('mailto:') ? `Email ${uri.slice('mailto:'.length)}` : `Link to ${uri}` });
  }

  /**
   * Where an image goes: a Figure with its alternate text, or decoration (an
   * artifact) when the text is empty (alt="" in HTML's sense). An image
   * given no alt at all (a file that is tagged but not PDF/UA) is a Figure
   * without /Alt, as Chromium tags an <img> without one: a reader still
   * finds a figure there.
   */
  figure(alt: string | undefined): Element | Artifact {
    if (alt === undefined) return this.child('Figure');
    return alt.trim() === '' ? DECORATION : this.child('Figure', { alt });
  }

  /** The innermost open element (an artifact span holds no elements: its elements go to the one around it). */
  #container(): Element {
    for (let i = this.#stack.length - 1; i >= 0; i--) {
      const element = this.#stack[i] as Element | Artifact;
      if ('role' in element) return element;
    }
    return this.root;
  }
}

/** The first Link to `uri` among the element's descendants (a cell's text may sit in a P inside it). */
function linkWithin(element: Element, uri: string): Element | undefined {
  const stack: Element[] = [element];
  while (stack.length > 0) {
    const next = stack.pop() as Element;
    if (next.role === 'Link' && next.uri === uri) return next;
    for (let i = next.kids.length - 1; i >= 0; i--) {
      const kid = next.kids[i];
      if (kid instanceof Element) stack.push(kid);
    }
  }
  return undefined;
}
