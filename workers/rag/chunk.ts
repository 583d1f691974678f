// The three chunking strategies of POST /v1/rag/chunk, over a document's
// elements (document.ts):
// - semantic: chunks follow the structure. A heading starts a new chunk and
//   sets the section; paragraphs are packed whole while they fit, a paragraph
//   too large for one chunk is cut between sentences, never inside one; the
//   overlap carries the previous chunk's last whole sentences forward within
//   the same section. A sentence longer than a whole chunk stays whole (it
//   is the one case a chunk exceeds max_chunk_size), unless it is so long
//   (past LONG_SENTENCE_FACTOR chunks) that it is no sentence but unpunctuated
//   text, which is cut in token windows.
// - fixed: windows of max_chunk_size tokens, advancing by size - overlap.
// - page: one chunk per page, cut between sentences when a page is too large.
// With preserve_structure a table is a chunk of its own, as Markdown (cut
// between rows, header repeated, when it is too large); without it, its
// Markdown is one more paragraph.
import { countTokens, decodeTokens, encodeTokens } from '../seams/tokenizer.js';
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
    return tokenWindows(sentence, settings.maxTokens, 0).map((window, w) => piece(window, page, index === 0 && w === 0));
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

function tokenWindows(text: string, size: number, overlap: number): string[] {
  const tokens = encodeTokens(text);
  const step = Math.max(1, size - overlap);
  const windows: string[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    windows.push(decodeTokens(tokens.slice(start, start + size)).trim());
    if (start + size >= tokens.length) break;
  }
  return windows;
}

/** Token windows over the text in reading order; a window's page and section are those of its first token. */
function fixedWindows(elements: readonly Element[], settings: ChunkSettings): Chunk[] {
  const out: Chunk[] = [];
  const tokens: number[] = [];
  const origin: { page: number; headings: string[] }[] = [];
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
    const text = element.kind === 'table' ? element.markdown : element.text;
    const encoded = encodeTokens(`${tokens.length === 0 ? '' : '\n\n'}${text}`);
    const at = { page: element.page, headings: [...path] };
    for (const token of encoded) {
      tokens.push(token);
      origin.push(at);
    }
  }
  const step = Math.max(1, settings.maxTokens - settings.overlapTokens);
  const windows: Chunk[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    const from = origin[start] as { page: number; headings: string[] };
    windows.push({ text: decodeTokens(tokens.slice(start, start + settings.maxTokens)).trim(), page: from.page, headings: from.headings, isTable: false });
    if (start + settings.maxTokens >= tokens.length) break;
  }
  // Tables were set aside as they came; keep the document's order by page.
  return [...windows, ...out].sort((a, b) => a.page - b.page).filter((chunk) => chunk.text !== '');
}
