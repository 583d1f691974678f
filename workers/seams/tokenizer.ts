// The tokenizer seam: token counts and token windows for the retrieval
// routes come from gpt-tokenizer (pinned), which ships its BPE tables in the
// package, so counting works offline. o200k_base is the encoding of OpenAI's
// current models (GPT-4o and later); a count in it is what a client feeding
// chunks to such a model pays for. Loaded on first use (~0.2 s idle, over a
// second on a loaded machine), so workers that never chunk never pay it.
import type * as Tokenizer from 'gpt-tokenizer/encoding/o200k_base';

/** What `data.tokenizer` says, so a client knows how token_count was counted. */
export const TOKENIZER_NAME = 'o200k_base (gpt-tokenizer 4.0.0)';

let loaded: typeof Tokenizer | undefined;

/** Loads the tables once per worker; every other call here needs it done. */
export async function loadTokenizer(): Promise<void> {
  loaded ??= await import('gpt-tokenizer/encoding/o200k_base');
}

function tokenizer(): typeof Tokenizer {
  if (loaded === undefined) throw new Error('loadTokenizer() must be awaited before counting tokens');
  return loaded;
}

/**
 * A document's text is text, never a control sequence: "<|endoftext|>" in a
 * PDF is counted as the characters it is (gpt-tokenizer's default throws on
 * it, which was a 500 for any PDF quoting one).
 */
const PLAIN = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text === '' ? 0 : tokenizer().countTokens(text, PLAIN);
}

export function encodeTokens(text: string): number[] {
  return tokenizer().encode(text, PLAIN);
}

/**
 * The text's tokens and, for each boundary between them (0 to
 * tokens.length), the offset in the text (UTF-16 code units) of the whole
 * characters the tokens before it make. o200k_base has tokens of single
 * UTF-8 bytes, so a character outside its vocabulary (a rare CJK one, an
 * emoji) spans several; a boundary inside one is given the offset before it.
 * Text is cut at these offsets, never by decoding a slice of ids, which
 * mangles a split character (and leaves bytes in gpt-tokenizer's shared
 * streaming TextDecoder for the next decode).
 */
export function tokenOffsets(text: string): { tokens: number[]; offsets: number[] } {
  const tokens = encodeTokens(text);
  const offsets = new Array<number>(tokens.length + 1).fill(-1);
  offsets[0] = 0;
  // decodeGenerator pulls ids one at a time and yields as soon as they make
  // whole characters, so the count pulled at a yield is the boundary the text so far ends at.
  let pulled = 0;
  function* counted(): Generator<number> {
    for (const token of tokens) {
      pulled++;
      yield token;
    }
  }
  let at = 0;
  for (const part of tokenizer().decodeGenerator(counted())) {
    at += part.length;
    offsets[pulled] = at;
  }
  if (at !== text.length) throw new Error(`decoding the tokens of a text of ${text.length} code units gave ${at}`);
  for (let i = 1; i < offsets.length; i++) if (offsets[i] === -1) offsets[i] = offsets[i - 1] as number;
  return { tokens, offsets };
}
