// Executes a validated RenderRequest against a Document: a flow cursor that
// moves down the page, wraps text in the content box and breaks pages, plus
// absolute placement that leaves the cursor alone. Coordinates in requests
// are points from the page's top-left corner (what people measure); they are
// turned into PDF space (origin bottom-left) only when drawing.
import type { FieldError } from '../protocol.js';
import type { Document, Font, Page, Rgb } from '../lib/pdf.js';
import { pageSize, type Orientation } from './page-sizes.js';
import type { Operation, RenderRequest } from './schema.js';
import { wrapText } from './wrap.js';

type Op<T extends Operation['type']> = Extract<Operation, { type: T }>;

interface TextStyle {
  font: Font;
  size: number;
  color: Rgb;
  lineHeight: number;
}

/** A failure the client can fix, reported as 422 with the operation's field path. */
export class RenderError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors[0]?.message ?? 'render failed');
    this.name = 'RenderError';
  }
}

const DEFAULT_FONT = 'Helvetica';
const DEFAULT_SIZE = 12;
const DEFAULT_LINE_HEIGHT = 1.2;
const BLACK: Rgb = { r: 0, g: 0, b: 0 };

export class Engine {
  #page: Page | undefined;
  /** Distance from the top edge of the current page to the top of the next line. */
  #cursor = 0;
  #style: TextStyle;
  #pageSize: readonly [number, number];

  constructor(
    private readonly doc: Document,
    private readonly request: RenderRequest,
  ) {
    this.#style = { font: doc.standardFont(DEFAULT_FONT), size: DEFAULT_SIZE, color: BLACK, lineHeight: DEFAULT_LINE_HEIGHT };
    this.#pageSize = pageSize(request.page_size, request.orientation) as [number, number];
  }

  run(): void {
    this.request.operations.forEach((op, index) => {
      const at = `operations[${index}]`;
      switch (op.type) {
        case 'add_page':
          return this.#addPage(op);
        case 'set_font':
          return this.#setFont(op);
        case 'add_text':
          return this.#addText(op, at);
      }
    });
    // A PDF needs at least one page; a request of only set_font gets a blank one.
    if (this.doc.pageCount === 0) this.#newPage(this.#pageSize);
  }

  #addPage(op: Op<'add_page'>): void {
    const size =
      op.page_size !== undefined || op.orientation !== undefined
        ? (pageSize(op.page_size ?? this.request.page_size, (op.orientation ?? this.request.orientation) as Orientation) as [number, number])
        : this.#pageSize;
    this.#newPage(size);
  }

  #newPage(size: readonly [number, number]): Page {
    this.#page = this.doc.addPage(size[0], size[1]);
    this.#pageSize = size;
    this.#cursor = this.request.margin;
    return this.#page;
  }

  #currentPage(): Page {
    return this.#page ?? this.#newPage(this.#pageSize);
  }

  #setFont(op: Op<'set_font'>): void {
    const style = this.#style;
    if (op.family !== undefined || op.bold !== undefined || op.italic !== undefined) {
      const family = op.family ?? familyOf(style.font.name);
      style.font = this.doc.standardFont(standardFontName(family, op.bold ?? false, op.italic ?? false));
    }
    if (op.size !== undefined) style.size = op.size;
    if (op.color !== undefined) style.color = parseColor(op.color);
    if (op.line_height !== undefined) style.lineHeight = op.line_height;
  }

  #addText(op: Op<'add_text'>, at: string): void {
    const style: TextStyle = {
      ...this.#style,
      size: op.size ?? this.#style.size,
      color: op.color !== undefined ? parseColor(op.color) : this.#style.color,
    };
    const missing = style.font.missingCharacters(op.text);
    if (missing.length > 0) {
      const listed = missing.slice(0, 20).map(describeCharacter).join(', ');
      throw new RenderError([
        {
          field: `${at}.text`,
          code: 'UNSUPPORTED_CHARACTERS',
          message: `The font ${style.font.name} cannot draw ${listed}${missing.length > 20 ? ` and ${missing.length - 20} more` : ''}; the standard fonts cover Latin-1 (WinAnsi) only.`,
        },
      ]);
    }
    const page = this.#currentPage();
    const margin = this.request.margin;
    const measure = (text: string) => style.font.widthOf(text, style.size);
    const leading = style.size * style.lineHeight;
    const ascent = style.font.ascentAt(style.size);
    const align = op.align ?? 'left';

    if (op.x !== undefined && op.y !== undefined) {
      const width = op.width ?? Math.max(1, page.width - margin - op.x);
      let top = op.y;
      for (const line of wrapText(op.text, width, measure)) {
        drawLine(page, line, op.x, width, page.height - top - ascent, style, align, measure);
        top += leading;
      }
      return;
    }

    const contentWidth = Math.max(1, this.#pageSize[0] - 2 * margin);
    const width = Math.min(op.width ?? contentWidth, contentWidth);
    let current = page;
    for (const line of wrapText(op.text, width, measure)) {
      if (this.#cursor + leading > current.height - margin && this.#cursor > margin) {
        current = this.#newPage(this.#pageSize);
      }
      drawLine(current, line, margin, width, current.height - this.#cursor - ascent, style, align, measure);
      this.#cursor += leading;
    }
  }
}

function drawLine(
  page: Page,
  line: string,
  left: number,
  width: number,
  baseline: number,
  style: TextStyle,
  align: 'left' | 'center' | 'right',
  measure: (text: string) => number,
): void {
  if (line === '') return;
  const slack = width - measure(line);
  const x = align === 'left' ? left : align === 'center' ? left + slack / 2 : left + slack;
  page.drawText(line, x, baseline, style.font, style.size, style.color);
}

const VARIANTS: Record<string, readonly [string, string, string, string]> = {
  // regular, bold, italic, bold italic
  Helvetica: ['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique'],
  Times: ['Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic'],
  Courier: ['Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique'],
  Symbol: ['Symbol', 'Symbol', 'Symbol', 'Symbol'],
  ZapfDingbats: ['ZapfDingbats', 'ZapfDingbats', 'ZapfDingbats', 'ZapfDingbats'],
};

function familyOf(fontName: string): string {
  return Object.keys(VARIANTS).find((family) => VARIANTS[family]?.includes(fontName)) ?? DEFAULT_FONT;
}

/** An exact standard name is used as given unless bold/italic ask for a variant of its family. */
function standardFontName(name: string, bold: boolean, italic: boolean): string {
  const variants = VARIANTS[name] ?? VARIANTS[familyOf(name)];
  if (variants === undefined) return name;
  if (!(name in VARIANTS) && !bold && !italic) return name;
  return variants[(bold ? 1 : 0) + (italic ? 2 : 0)] as string;
}

export function parseColor(hex: string): Rgb {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((d) => d + d).join('') : hex.slice(1);
  const value = Number.parseInt(digits, 16);
  return { r: ((value >> 16) & 255) / 255, g: ((value >> 8) & 255) / 255, b: (value & 255) / 255 };
}

function describeCharacter(char: string): string {
  const codePoint = char.codePointAt(0) as number;
  const hex = codePoint.toString(16).toUpperCase().padStart(4, '0');
  // Control and invisible characters are named by code point only, so the message stays readable.
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? `"${char}" (U+${hex})` : `U+${hex}`;
}
