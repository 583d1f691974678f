// What text fields and list boxes share when fill-form draws them with the
// render engine: one font book per fill, made again only when the document's
// fonts change, and pdf-lib's own drawing kept for text the document itself
// holds (a value the request did not send, a list's options) in characters
// no font has, since refusing it would refuse a form the client cannot fix.
import { FontBook, MissingGlyphsError } from '../render/fonts.js';
import type { FontSource } from '../seams/pdf.js';

/** `draw` with the fill's font book; undefined (pdf-lib draws the field) when no font has a character. */
export function withFieldBook<Box extends { readonly language: string | undefined }, Drawing>(
  draw: (box: Box, book: FontBook) => Promise<Drawing>,
): (box: Box, fonts: FontSource) => Promise<Drawing | undefined> {
  let book: FontBook | undefined;
  let bookFonts: FontSource | undefined;
  return async (box, fonts) => {
    if (book === undefined || bookFonts !== fonts) {
      book = new FontBook(fonts, undefined, false, box.language);
      bookFonts = fonts;
    }
    try {
      return await draw(box, book);
    } catch (error) {
      if (error instanceof MissingGlyphsError) return undefined;
      throw error;
    }
  };
}
