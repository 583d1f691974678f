// Request members the document operations share.
import * as v from 'valibot';

/** A PDF's user or owner password; bounded (PDF 2.0 passwords are at most 127 bytes of UTF-8). */
export const Password = v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'));

/** "1-3,7", "4-": workers/task/page-selection.ts parses it against the document. */
export const PageSelectionText = v.pipe(v.string(), v.minLength(1, 'must select at least one page, e.g. "1-3,7"'), v.maxLength(10_000, 'must be at most 10000 characters'));

const MetadataText = v.pipe(v.string(), v.maxLength(2000, 'must be at most 2000 characters'));

/** The document information the result carries instead of the first source's. */
export const DocumentMetadata = v.strictObject({
  title: v.optional(MetadataText),
  author: v.optional(MetadataText),
  subject: v.optional(MetadataText),
  keywords: v.optional(MetadataText),
  creator: v.optional(MetadataText),
});

/**
 * No cap on a decoded PDF of its own: the request body is already capped
 * (PLATEN_MAX_BODY_BYTES and the tier limits, at most 2 GiB), and base64
 * decodes to 3/4 of it.
 */
export const NO_DECODED_CAP = 2 ** 31;
