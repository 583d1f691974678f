// The inline content of one block, gathered into spans with HTML's
// white-space processing (CSS Text 3 section 4.1.1, `white-space: normal`):
// each run of ASCII whitespace becomes one space, and spaces at the start
// and end of a line vanish. Inside <pre> (`white-space: pre`) text is kept
// exactly as written.
import type { Span, TextStyle } from '../inline.js';

/** ASCII whitespace as the HTML standard defines it; U+00A0 (&nbsp;) is not, and stays. */
const WHITESPACE = /[\t\n\f\r ]+/;
/**
 * C0/C1 control characters other than whitespace: no font draws them and
 * browsers show nothing for most, so they are dropped rather than failing
 * the render with a missing-glyph error over an invisible character. The
 * soft hyphen (&shy;) goes too: browsers show it only where they hyphenate
 * a word at a line end, which this layout never does.
 */
const INVISIBLE = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\u00AD]/g;

export class InlineText {
  #spans: Span[] = [];
  /** A space owed before the next word, in the style of the text that held it; dropped at a line end. */
  #space: TextStyle | undefined;
  #lineHasText = false;
  /** Text or a line break: a block only of collapsed whitespace is no block at all. */
  #visible = false;

  constructor(readonly pre: boolean) {}

  text(value: string, style: TextStyle): void {
    const clean = value.replace(INVISIBLE, '');
    if (clean === '') return;
    if (this.pre) {
      this.#append(clean, style);
      this.#visible = true;
      return;
    }
    const words = clean.split(WHITESPACE);
    for (let i = 0; i < words.length; i++) {
      // Between two split pieces there was whitespace.
      if (i > 0 && this.#lineHasText) this.#space ??= style;
      const word = words[i] as string;
      if (word === '') continue;
      if (this.#space !== undefined) {
        this.#append(' ', this.#space);
        this.#space = undefined;
      }
      this.#append(word, style);
      this.#lineHasText = true;
      this.#visible = true;
    }
  }

  /** <br>: a hard line break (inline.ts lays out `\n` as one). */
  lineBreak(style: TextStyle): void {
    this.#append('\n', style);
    this.#space = undefined;
    this.#lineHasText = false;
    this.#visible = true;
  }

  /** The spans gathered since the last take, or undefined when there is nothing to show; starts a new block. */
  take(): Span[] | undefined {
    const spans = this.#visible ? this.#spans : undefined;
    this.#spans = [];
    this.#space = undefined;
    this.#lineHasText = false;
    this.#visible = false;
    return spans;
  }

  #append(text: string, style: TextStyle): void {
    const last = this.#spans[this.#spans.length - 1];
    // Styles are shared objects per element, so identity finds text of the same style.
    if (last !== undefined && last.style === style) this.#spans[this.#spans.length - 1] = { text: last.text + text, style };
    else this.#spans.push({ text, style });
  }
}
