// The failures a client can fix while rendering (422 with field paths), and
// the wrappers that turn lower-level refusals (undecodable base64, characters
// no font has) into them.
import type { FieldError } from '../protocol.js';
import { decodeBase64, type Base64Problem } from '../task/base64.js';
import { MissingGlyphsError } from './fonts.js';

/** A failure the client can fix, reported as 422 with the operation's field path. */
export class RenderError extends Error {
  constructor(
    readonly errors: FieldError[],
    /** What a library said about it: for the server's log, never the response. */
    override readonly cause?: string,
  ) {
    super(errors[0]?.message ?? 'render failed');
    this.name = 'RenderError';
  }
}

/** A decoded value, or a 422 for `field` with the code the caller gives each problem. */
export function decodeBase64Field(value: string, maxBytes: number, field: string, codes: Readonly<Record<Base64Problem['problem'], string>>): Uint8Array {
  const decoded = decodeBase64(value, maxBytes);
  if (decoded instanceof Uint8Array) return decoded;
  throw new RenderError([{ field, code: codes[decoded.problem], message: decoded.message }]);
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
      : `No available font can draw ${listed}${more} (tried ${error.fontName} and the bundled DejaVu and Noto fallbacks); register a font that has them with set_font.`;
    throw new RenderError([{ field, code: 'UNSUPPORTED_CHARACTERS', message }]);
  }
}

function describeCharacter(char: string): string {
  const hex = (char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
  // Control and invisible characters are named by code point only, so the message stays readable.
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? `"${char}" (U+${hex})` : `U+${hex}`;
}
