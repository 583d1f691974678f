// The valibot schemas of fields that the document and several operations
// share: lengths, page sizes, colours, font sizes, alignment, link targets.
import * as v from 'valibot';
import { parseColor } from './colour.js';
import { PAGE_SIZE_NAMES, canonicalPageSize } from './page-sizes.js';

/** A length in points (1/72 in); A0 landscape is 3370 pt wide, so this bound is generous. */
export const points = (max = 14_400) => v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(max));

export const pageSizeName = v.pipe(
  v.string(),
  v.transform(canonicalPageSize),
  v.picklist(PAGE_SIZE_NAMES, `must be one of ${PAGE_SIZE_NAMES.join(', ')} (case-insensitive)`),
);

export const orientation = v.picklist(['portrait', 'landscape'], 'must be portrait or landscape');

export const color = v.pipe(
  v.string(),
  v.regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour such as #1f2937 or #333'),
  v.transform(parseColor),
);

export const fontSize = v.pipe(v.number(), v.finite(), v.minValue(1), v.maxValue(500));

export const align = v.picklist(['left', 'center', 'right', 'justify'], 'must be left, center, right or justify');

/**
 * Link targets: http, https and mailto only (no javascript:, file:, data:).
 * Normalised by the WHATWG URL parser, so the target written into the PDF is
 * plain ASCII (non-ASCII is percent-encoded, hosts are punycode).
 */
export const link = v.pipe(
  v.string(),
  v.maxLength(2048),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    let url: URL;
    try {
      url = new URL(dataset.value);
    } catch {
      addIssue({ message: 'must be an absolute http, https or mailto URL' });
      return NEVER;
    }
    if (!['http:', 'https:', 'mailto:'].includes(url.protocol)) {
      addIssue({ message: 'only http, https and mailto links are allowed' });
      return NEVER;
    }
    return url.href;
  }),
);
