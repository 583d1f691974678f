// One page's drawing, written straight into content-stream operators (ISO
// 32000-1 sections 8 and 9). Callers use top-left coordinates in points, as
// people measure a page; this class turns them into PDF space (origin
// bottom-left). Text arrives already encoded as hex string operands by the
// font, so nothing a client sends can become PDF syntax.
import type { Font, Image, LinkArea, PageContent } from '../lib/pdf.js';
import type { Run } from './fonts.js';

export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

export const BLACK: Rgb = Object.freeze({ r: 0, g: 0, b: 0 });

/** Compact decimal: two places are 1/7200 in, finer than any printer. */
function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function color(c: Rgb): string {
  return `${n(c.r)} ${n(c.g)} ${n(c.b)}`;
}

export interface TextDecoration {
  readonly underline?: boolean;
  readonly strike?: boolean;
}

export class PageCanvas {
  readonly #ops: string[] = [];
  readonly #fonts = new Set<Font>();
  readonly #images = new Set<Image>();
  readonly #links: LinkArea[] = [];

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  /**
   * Draws runs left to right from x on the baseline at `baseline` (from the
   * top). `gaps` widens each space by that many points (justified text).
   * Returns the width drawn.
   */
  text(runs: readonly Run[], x: number, baseline: number, size: number, fill: Rgb, decoration: TextDecoration = {}): number {
    const y = this.height - baseline;
    let cursor = x;
    const ops = this.#ops;
    ops.push(`BT ${color(fill)} rg`);
    for (const run of runs) {
      this.#fonts.add(run.font);
      ops.push(`/${run.font.key} ${n(size)} Tf 1 0 0 1 ${n(cursor)} ${n(y)} Tm ${run.font.encode(run.text)} Tj`);
      cursor += run.font.widthOf(run.text, size);
    }
    ops.push('ET');
    const width = cursor - x;
    // Line positions and thickness follow common type metrics (about 1/10 and 1/20 em).
    if (decoration.underline === true) this.fillRect(x, baseline + size * 0.1, width, size * 0.05, fill);
    if (decoration.strike === true) this.fillRect(x, baseline - size * 0.28, width, size * 0.05, fill);
    return width;
  }

  fillRect(x: number, top: number, width: number, height: number, fill: Rgb): void {
    this.#ops.push(`${color(fill)} rg ${n(x)} ${n(this.height - top - height)} ${n(width)} ${n(height)} re f`);
  }

  strokeRect(x: number, top: number, width: number, height: number, stroke: Rgb, lineWidth: number): void {
    this.#ops.push(`${color(stroke)} RG ${n(lineWidth)} w ${n(x)} ${n(this.height - top - height)} ${n(width)} ${n(height)} re S`);
  }

  line(x1: number, top1: number, x2: number, top2: number, stroke: Rgb, lineWidth: number): void {
    this.#ops.push(`${color(stroke)} RG ${n(lineWidth)} w ${n(x1)} ${n(this.height - top1)} m ${n(x2)} ${n(this.height - top2)} l S`);
  }

  image(image: Image, x: number, top: number, width: number, height: number): void {
    this.#images.add(image);
    this.#ops.push(`q ${n(width)} 0 0 ${n(height)} ${n(x)} ${n(this.height - top - height)} cm /${image.key} Do Q`);
  }

  /** Clips what follows to a rectangle until restore() (used for `cover` images). */
  clip(x: number, top: number, width: number, height: number): void {
    this.#ops.push(`q ${n(x)} ${n(this.height - top - height)} ${n(width)} ${n(height)} re W n`);
  }

  restore(): void {
    this.#ops.push('Q');
  }

  link(x: number, top: number, width: number, height: number, uri: string): void {
    this.#links.push({ x, y: this.height - top - height, width, height, uri });
  }

  content(): PageContent {
    return {
      width: this.width,
      height: this.height,
      operators: this.#ops.join('\n'),
      fonts: this.#fonts,
      images: this.#images,
      links: this.#links,
    };
  }
}
