// Schema pieces shared by the document and its operations, and the context
// every operation runs in.
import * as v from 'valibot';
import type { FieldError } from '../protocol.js';
import { decodeBase64, type Base64Problem } from '../lib/base64.js';
import type { Document } from '../lib/pdf.js';
import type { Rgb } from './canvas.js';
import type { Flow } from './flow.js';
import { MissingGlyphsError, type FontBook } from './fonts.js';
import type { TextStyle } from './inline.js';
import { PAGE_SIZE_NAMES, canonicalPageSize, type Orientation } from './page-sizes.js';

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

/** A decoded value, or a 422 for `field` with the code the caller gives each problem. */
export function decodeBase64Field(value: string, maxBytes: number, field: string, codes: Readonly<Record<Base64Problem['problem'], string>>): Uint8Array {
  const decoded = decodeBase64(value, maxBytes);
  if (decoded instanceof Uint8Array) return decoded;
  throw new RenderError([{ field, code: codes[decoded.problem], message: decoded.message }]);
}

export function parseColor(hex: string): Rgb {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((d) => d + d).join('') : hex.slice(1);
  const value = Number.parseInt(digits, 16);
  return { r: ((value >> 16) & 255) / 255, g: ((value >> 8) & 255) / 255, b: (value & 255) / 255 };
}

/** A failure the client can fix, reported as 422 with the operation's field path. */
export class RenderError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors[0]?.message ?? 'render failed');
    this.name = 'RenderError';
  }
}

export interface RenderContext {
  readonly doc: Document;
  readonly flow: Flow;
  readonly fonts: FontBook;
  /** The text style set_font maintains; operations override parts of it per call. */
  style: TextStyle;
  readonly pageSize: (size: string | undefined, orientation: Orientation | undefined) => readonly [number, number];
}

/** One operation type: its schema and what it does. `at` is its field path, e.g. `operations[3]`. */
export interface OperationType<S extends v.GenericSchema> {
  readonly schema: S;
  run(op: v.InferOutput<S>, context: RenderContext, at: string): Promise<void> | void;
}

/** Runs layout that may meet characters no font has, reporting them against `field`. */
export function withGlyphCheck<T>(field: string, layout: () => T): T {
  try {
    return layout();
  } catch (error) {
    if (!(error instanceof MissingGlyphsError)) throw error;
    const listed = error.characters.slice(0, 20).map(describeCharacter).join(', ');
    const more = error.characters.length > 20 ? ` and ${error.characters.length - 20} more` : '';
    // Control characters and unpaired surrogates are not text any font could draw: say so, rather than suggest a font.
    const notText = error.characters.every((char) => /^[\p{Cc}\p{Cs}]$/u.test(char));
    const message = notText
      ? `The text holds ${listed}${more}: control characters and unpaired surrogates cannot be drawn; remove them.`
      : `No available font can draw ${listed}${more} (tried ${error.fontName} and the built-in Unicode fallback); register a font that has them with set_font.`;
    throw new RenderError([{ field, code: 'UNSUPPORTED_CHARACTERS', message }]);
  }
}

function describeCharacter(char: string): string {
  const hex = (char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
  // Control and invisible characters are named by code point only, so the message stays readable.
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? `"${char}" (U+${hex})` : `U+${hex}`;
}
