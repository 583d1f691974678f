// What one redact request may interpret, counted across every content
// stream and form it walks (redact/content.ts), so that a small hostile file
// (forms drawing forms, nested a few levels) is refused with a 422 instead
// of running into the processing timeout. The counts double as the
// response's tally of what was removed.
export interface RedactionCounts {
  glyphs: number;
  paths: number;
  images: number;
  /** Operations interpreted so far, forms counted each time they are drawn (see MAX_OPERATIONS). */
  operations: number;
  /** Form XObjects walked into so far (see MAX_FORM_WALKS). */
  forms: number;
}

/** Forms walked into per request: each walk decodes and reads the form's stream again. */
export const MAX_FORM_WALKS = 10_000;

/**
 * Operations one request may interpret. A form drawn 100 times by a form
 * drawn 100 times, a few levels deep, multiplies without end while the file
 * stays small; a real page is thousands to a few hundred thousand.
 */
export const MAX_OPERATIONS = 5_000_000;

/** The document draws more than MAX_OPERATIONS: refused (422), not left to the processing timeout. */
export class TooMuchContent extends Error {
  override readonly name = 'TooMuchContent';
}
