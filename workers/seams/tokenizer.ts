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

export function countTokens(text: string): number {
  return text === '' ? 0 : tokenizer().countTokens(text);
}

export function encodeTokens(text: string): number[] {
  return tokenizer().encode(text);
}

export function decodeTokens(tokens: readonly number[]): string {
  return tokenizer().decode(tokens as number[]);
}
