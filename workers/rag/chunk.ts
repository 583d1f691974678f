// The three chunking strategies of POST /v1/rag/chunk, over a document's
// elements (document.ts):
// - semantic: chunks follow the structure. A heading starts a new chunk and
//   sets the section; paragraphs are packed whole while they fit, a paragraph
//   too large for one chunk is cut between sentences, never inside one; the
//   overlap carries the previous chunk's last whole sentences forward within
//   the same section. A sentence longer than a whole chunk stays whole (it
//   and a table row larger than a chunk are the cases a chunk exceeds
//   max_chunk_size), unless it is so long
//   (past LONG_SENTENCE_FACTOR chunks) that it is no sentence but unpunctuated
//   text, which is cut in token windows.
// - fixed: token windows of at most max_chunk_size tokens counted again on
//   their own text, each starting overlap tokens before the last one ended.
// - page: one chunk per page, cut between sentences when a page is too large.
// With preserve_structure a table is a chunk of its own, as Markdown (cut
// between rows, header repeated, when it is too large); without it, its
// Markdown is one more paragraph.
import { countTokens, tokenOffsets } from '../seams/tokenizer.js';
import type { Element } from './document.js';
import { sentences } from './sentences.js';

export type Strategy = 'semantic' | 'fixed' | 'page';

export interface ChunkSettings {
  readonly strategy: Strategy;
  readonly maxTokens: number;
  readonly overlapTokens: number;
  readonly preserveStructure: boolean;
  readonly language: string | undefined;
}

export interface Chunk {
  readonly text: string;
  readonly page: number;
  readonly headings: readonly string[];
  readonly isTable: boolean;
}

const LONG_SENTENCE_FACTOR = 4;

interface Piece {
  readonly text: string;
  readonly tokens: number;
  readonly page: number;
  /** Joined to the piece before it with a paragraph break, or a space within a paragraph. */
  readonly startsParagraph: boolean;
  /** Carried over from the chunk before as its overlap. */
  readonly carried?: boolean;
  readonly heading?: boolean;
}

export function chunkElements(elements: readonly Element[], settings: ChunkSettings): Chunk[] {
  if (settings.strategy === 'fixed') return fixedWindows(elements, settings);
  const out: Chunk[] = [];
  const path: string[] = [];
  let pieces: Piece[] = [];
  let page = 0;
  const emit = (carry: boolean) => {
    // A chunk of nothing but the previous chunk's overlap says nothing new, nor does one of headings
    // alone: they are in the next chunks' headings_path, and the first of those starts with its heading.
    if (!pieces.some((p) => p.carried !== true && p.heading !== true)) {
      pieces = [];
      return;
    }
    out.push({ text: joinPieces(pieces), page: pieces[0]?.page ?? page, headings: [...path], isTable: false });
    pieces = carry ? overlapOf(pieces, settings) : [];
  };
  // Each join (a space or a paragraph break) may cost a token of its own: counted, so chunks stay within the size.
  const size = (list: readonly Piece[]) => list.reduce((sum, p) => sum + p.tokens, 0) + list.length;
  const add = (next: Piece) => {
    if (size(pieces) + next.tokens > settings.maxTokens) {
      if (pieces.some((p) => p.carried !== true)) emit(true);
      // Overlap that leaves no room for what comes next gives way to it.
      while (pieces.length > 0 && size(pieces) + next.tokens > settings.maxTokens) pieces.shift();
    }
    pieces.push(next);
  };
  for (const element of elements) {
    if (settings.strategy === 'page' && element.page !== page) {
      emit(false);
      page = element.page;
    }
    if (element.kind === 'heading') {
      if (settings.strategy === 'semantic') {
        emit(false);
        path.splice(Math.max(0, element.level - 1));
        path.push(element.text);
      }
      add({ ...piece(element.text, element.page, true), heading: true });
    } else if (element.kind === 'table' && settings.preserveStructure) {
      emit(false);
      for (const text of tableParts(element.rows, settings.maxTokens)) out.push({ text, page: element.page, headings: [...path], isTable: true });
    } else {
      const text = element.kind === 'table' ? element.markdown : element.text;
      const whole = piece(text, element.page, true);
      if (whole.tokens <= settings.maxTokens) add(whole);
      else sentencePieces(text, element.page, settings).forEach((p) => add(p));
    }
  }
  emit(false);
  return out.filter((chunk) => chunk.text.trim() !== '');
}

function piece(text: string, page: number, startsParagraph: boolean): Piece {
  return { text, tokens: countTokens(text), page, startsParagraph };
}

function sentencePieces(text: string, page: number, settings: ChunkSettings): Piece[] {
  return sentences(text, settings.language).flatMap((sentence, index) => {
    const whole = piece(sentence, page, index === 0);
    if (whole.tokens <= settings.maxTokens * LONG_SENTENCE_FACTOR) return [whole];
    return tokenWindows(sentence, settings.maxTokens, 0).map((window, w) => piece(window.text, page, index === 0 && w === 0));
  });
}

/** The last whole sentences of what was just emitted, up to the overlap, carried into the next chunk. */
function overlapOf(pieces: readonly Piece[], settings: ChunkSettings): Piece[] {
  if (settings.overlapTokens === 0) return [];
  const tail: Piece[] = [];
  let tokens = 0;
  for (let i = pieces.length - 1; i >= 0; i--) {
    const last = pieces[i] as Piece;
    const parts = sentences(last.text, settings.language);
    for (let s = parts.length - 1; s >= 0; s--) {
      const sentence = parts[s] as string;
      const count = countTokens(sentence);
      if (tokens + count > settings.overlapTokens) return tail;
      tokens += count;
      tail.unshift({ text: sentence, tokens: count, page: last.page, startsParagraph: s === 0 && last.startsParagraph, carried: true });
    }
  }
  return tail;
}

function joinPieces(pieces: readonly Piece[]): string {
  return pieces.map((p, i) => (i === 0 ? p.text : `${p.startsParagraph ? '\n\n' : ' '}${p.text}`)).join('');
}

/** A table's Markdown in parts that fit, each with the header rows first. */
function tableParts(rows: readonly string[], maxTokens: number): string[] {
  const [header = '', ...body] = rows;
  const whole = [header, ...body].join('\n');
  if (countTokens(whole) <= maxTokens || body.length === 0) return [whole];
  const parts: string[] = [];
  let current: string[] = [];
  let tokens = countTokens(header);
  for (const row of body) {
    const count = countTokens(row) + 1;
    if (current.length > 0 && tokens + count > maxTokens) {
      parts.push([header, ...current].join('\n'));
      current = [];
      tokens = countTokens(header);
    }
    current.push(row);
    tokens += count;
  }
  if (current.length > 0) parts.push([header, ...current].join('\n'));
  return parts;
}

/**
 * Windows over a text, each of at most `size` tokens counted again on its own
 * text, each starting `overlap` of the whole text's tokens before the end of
 * the one before (`size - overlap` after its start, unless that window had to
 * end sooner or could end later), so no text is skipped. Cut between two of
 * the text's tokens, a window's text does not always re-tokenise to the
 * tokens it was cut from: "unbelievable" is
 * " unbel", "ievable" inside the sentence but "ie", "vable" from the cut, a
 * trimmed "\n\n" is a token less, and a BPE merge may span the cut. So the
 * count of the window's own text decides: a window over `size` gives up
 * tokens at its end until it fits, one under takes more while they fit. All
 * but the last thus hold `size` tokens, unless one more token of the text
 * would re-count as two (measured: 0.1% of windows over mixed Latin, CJK and
 * emoji text, short by one).
 */
function tokenWindows(text: string, size: number, overlap: number): { from: number; text: string }[] {
  const { tokens, offsets } = tokenOffsets(text);
  const at = (boundary: number) => offsets[boundary] as number;
  const cut = (from: number, to: number) => text.slice(at(from), at(to)).trim();
  const windows: { from: number; text: string }[] = [];
  for (let start = 0; start < tokens.length; ) {
    let end = Math.min(tokens.length, start + size);
    let window = cut(start, end);
    let count = countTokens(window);
    while (count > size && end > start + 1) {
      end = Math.max(start + 1, end - (count - size));
      window = cut(start, end);
      count = countTokens(window);
    }
    // Grows by what is missing, halving the step when that overshoots.
    for (let more = size - count; more > 0 && end < tokens.length; ) {
      const to = Math.min(tokens.length, end + more);
      const longer = cut(start, to);
      const longerCount = countTokens(longer);
      if (longerCount <= size) {
        [end, window, count, more] = [to, longer, longerCount, size - longerCount];
      } else {
        more = Math.floor(more / 2);
      }
    }
    // Where the window's trimmed text starts: past the whitespace its first tokens may begin with.
    let from = at(start);
    while (from < text.length && /\s/.test(text[from] as string)) from++;
    windows.push({ from, text: window });
    if (end >= tokens.length) break;
    // chunk_overlap tokens before this window's end, wherever its end came to be: never a token skipped, never more overlap than asked.
    start = Math.max(start + 1, end - overlap);
  }
  return windows.filter((w) => w.text !== '');
}

/** Token windows over the text in reading order; a window's page and section are those of its first character. */
function fixedWindows(elements: readonly Element[], settings: ChunkSettings): Chunk[] {
  const out: Chunk[] = [];
  const texts: string[] = [];
  const origins: { at: number; page: number; headings: string[] }[] = [];
  let length = 0;
  const path: string[] = [];
  for (const element of elements) {
    if (element.kind === 'heading') {
      path.splice(Math.max(0, element.level - 1));
      path.push(element.text);
    }
    if (element.kind === 'table' && settings.preserveStructure) {
      for (const text of tableParts(element.rows, settings.maxTokens)) out.push({ text, page: element.page, headings: [...path], isTable: true });
      continue;
    }
    const text = `${texts.length === 0 ? '' : '\n\n'}${element.kind === 'table' ? element.markdown : element.text}`;
    origins.push({ at: length, page: element.page, headings: [...path] });
    texts.push(text);
    length += text.length;
  }
  // The whole text is tokenised once, as a model reading it would: elements encoded apart and their
  // ids laid end to end are not the tokens of the text (a ".\n\n" is one token, not two).
  const windows: Chunk[] = [];
  let origin = 0;
  for (const window of tokenWindows(texts.join(''), settings.maxTokens, settings.overlapTokens)) {
    while (origin + 1 < origins.length && (origins[origin + 1]?.at as number) <= window.from) origin++;
    const from = origins[origin] as { page: number; headings: string[] };
    windows.push({ text: window.text, page: from.page, headings: from.headings, isTable: false });
  }
  // Tables were set aside as they came; keep the document's order by page.
  return [...windows, ...out].sort((a, b) => a.page - b.page).filter((chunk) => chunk.text !== '');
}
