// Between the typed shapes (types.ts) and the wire's JSON: bytes to base64
// on the way out; on the way in, the envelope checked and base64 decoded.
// A response that does not have the promised shape is a typed error, not a
// crash somewhere in the caller's code later.
import type {
  AccelResponse,
  ChunkRequest,
  ChunkResult,
  EmbedResult,
  ClusterStatus,
  CompressImageRequest,
  CompressImageResult,
  CompareRequest,
  CompareResult,
  ExtractTextRequest,
  ExtractTextResult,
  HealthRecord,
  IndexRequest,
  IndexResult,
  SearchResult,
  LinearizeRequest,
  ParseRequest,
  ParseResult,
  LinearizeResult,
  SubsetFontRequest,
  SubsetFontResult,
  FontList,
  RegisteredFont,
  RenderResponse,
} from './types.js';

/** Thrown by a decoder; the client turns it into a PlatenResponseError. */
export class ShapeError extends Error {}

type Json = Record<string, unknown>;

export function base64(bytes: Uint8Array, field: string): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${field} must be a Uint8Array or a Buffer`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function encodeSubsetFont(request: SubsetFontRequest): Json {
  return { ...request, font_data: base64(request.font_data, 'font_data') };
}

export function encodeCompressImage(request: CompressImageRequest): Json {
  return { ...request, image_data: base64(request.image_data, 'image_data') };
}

export function encodeLinearize(request: LinearizeRequest): Json {
  return { ...request, pdf_data: base64(request.pdf_data, 'pdf_data') };
}

export function encodeExtractText(request: ExtractTextRequest): Json {
  return { ...request, pdf_data: base64(request.pdf_data, 'pdf_data') };
}

export function encodeCompare(request: CompareRequest): Json {
  return { ...request, pdf_a: base64(request.pdf_a, 'pdf_a'), pdf_b: base64(request.pdf_b, 'pdf_b') };
}

export function decodeCompare(data: Json): CompareResult {
  const summary = object(data.summary, 'data.summary');
  for (const key of ['pages_changed', 'text_additions', 'text_deletions', 'image_changes']) number(summary, key);
  if (!Array.isArray(data.changes)) throw new ShapeError('data.changes is not an array');
  for (const change of data.changes as unknown[]) {
    const record = object(change, 'a change');
    number(record, 'page');
    object(record.position, 'a change position');
  }
  return data as unknown as CompareResult;
}

export function decodeExtractText(data: Json): ExtractTextResult {
  number(data, 'page_count');
  if (!Array.isArray(data.pages)) throw new ShapeError('data.pages is not an array');
  for (const page of data.pages as unknown[]) {
    const record = object(page, 'a page');
    number(record, 'page_number');
    if (!Array.isArray(record.spans)) throw new ShapeError('a page has no spans array');
  }
  return data as unknown as ExtractTextResult;
}

export function encodeParse(request: ParseRequest): Json {
  return { ...request, pdf_data: base64(request.pdf_data, 'pdf_data') };
}

export function decodeParse(data: Json): ParseResult {
  number(data, 'page_count');
  object(data.metadata, 'data.metadata');
  if (!Array.isArray(data.pages)) throw new ShapeError('data.pages is not an array');
  for (const page of data.pages as unknown[]) {
    const record = object(page, 'a page');
    number(record, 'page_number');
    for (const list of ['text_blocks', 'tables', 'form_fields'] as const) {
      if (!Array.isArray(record[list])) throw new ShapeError(`a page has no ${list} array`);
    }
  }
  return data as unknown as ParseResult;
}

export function encodeChunk(request: ChunkRequest): Json {
  return { ...request, pdf_data: base64(request.pdf_data, 'pdf_data') };
}

export function decodeChunk(data: Json): ChunkResult {
  string(data, 'document_id');
  number(data, 'chunk_count');
  if (!Array.isArray(data.chunks)) throw new ShapeError('data.chunks is not an array');
  for (const chunk of data.chunks as unknown[]) string(object(chunk, 'a chunk'), 'text');
  return data as unknown as ChunkResult;
}

export function decodeEmbed(data: Json): EmbedResult {
  string(data, 'model');
  number(data, 'dimensions');
  if (!Array.isArray(data.embeddings)) throw new ShapeError('data.embeddings is not an array');
  for (const embedding of data.embeddings as unknown[]) {
    if (!Array.isArray(object(embedding, 'an embedding').vector)) throw new ShapeError('an embedding has no vector array');
  }
  return data as unknown as EmbedResult;
}

export function encodeIndex(request: IndexRequest): Json {
  return { ...request, pdf_data: base64(request.pdf_data, 'pdf_data') };
}

export function decodeIndex(data: Json): IndexResult {
  string(data, 'document_id');
  string(data, 'collection');
  number(data, 'chunks_indexed');
  number(data, 'vectors_upserted');
  return data as unknown as IndexResult;
}

export function decodeSearch(data: Json): SearchResult {
  string(data, 'model');
  if (!Array.isArray(data.results)) throw new ShapeError('data.results is not an array');
  for (const hit of data.results as unknown[]) {
    const result = object(hit, 'a search result');
    string(result, 'chunk_id');
    number(result, 'score');
  }
  return data as unknown as SearchResult;
}

export function decodeHealth(body: unknown): HealthRecord {
  const record = object(body, 'the health record');
  for (const field of ['status', 'version', 'tier', 'mode', 'circuit_breaker'] as const) string(record, field);
  for (const field of ['total', 'busy', 'idle'] as const) number(object(record.workers, 'workers'), field);
  number(record, 'uptime_seconds');
  return record as unknown as HealthRecord;
}

/** Checks the envelope and decodes its `data` with `data`. */
export function decodeEnvelope<Data>(body: unknown, data: (value: Json) => Data): AccelResponse<Data> {
  const envelope = object(body, 'the envelope');
  string(envelope, 'request_id');
  string(envelope, 'version');
  const meta = object(envelope.meta, 'meta');
  return {
    request_id: envelope.request_id as string,
    version: envelope.version as string,
    data: data(object(envelope.data, 'data')),
    meta: meta as unknown as AccelResponse<Data>['meta'],
  };
}

export function decodeSubsetFont(data: Json): SubsetFontResult {
  for (const field of ['original_size_bytes', 'subset_size_bytes', 'reduction_percent', 'included_glyphs']) number(data, field);
  return { ...(data as unknown as SubsetFontResult), font_data: bytes(data, 'font_data') };
}

export function decodeCompressImage(data: Json): CompressImageResult {
  for (const field of ['original_size_bytes', 'compressed_size_bytes', 'width', 'height']) number(data, field);
  string(data, 'format');
  return { ...(data as unknown as CompressImageResult), image_data: bytes(data, 'image_data') };
}

export function decodeLinearize(data: Json): LinearizeResult {
  return { ...data, pdf_data: bytes(data, 'pdf_data') };
}

export function decodeClusterStatus(data: Json): ClusterStatus {
  string(data, 'cluster_id');
  number(data, 'node_count');
  number(data, 'healthy_nodes');
  if (!Array.isArray(data.nodes)) throw new ShapeError('data.nodes is not an array');
  return data as unknown as ClusterStatus;
}

/** The render API's envelope (`{data, meta}`) with `data` decoded by `data`. */
export function decodeRenderEnvelope<Data>(body: unknown, data: (value: Json) => Data): RenderResponse<Data> {
  const envelope = object(body, 'the envelope');
  const meta = object(envelope.meta, 'meta');
  string(meta, 'request_id');
  return { data: data(object(envelope.data, 'data')), meta: meta as unknown as RenderResponse<Data>['meta'] };
}

export function decodeRegisteredFont(data: Json): RegisteredFont {
  for (const field of ['family', 'sha256', 'created_at', 'name'] as const) string(data, field);
  for (const field of ['size', 'glyphs'] as const) number(data, field);
  return data as unknown as RegisteredFont;
}

export function decodeFontList(data: Json): FontList {
  if (!Array.isArray(data.fonts)) throw new ShapeError('data.fonts is not an array');
  for (const font of data.fonts) decodeRegisteredFont(object(font, 'a font'));
  const usage = object(data.usage, 'data.usage');
  for (const field of ['count', 'max_count', 'bytes', 'max_bytes'] as const) number(usage, field);
  return data as unknown as FontList;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bytes(data: Json, field: string): Buffer {
  const text = string(data, field);
  // Buffer.from skips characters outside the alphabet; a damaged field must not decode to silently wrong bytes.
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new ShapeError(`data.${field} is not base64`);
  return Buffer.from(text, 'base64');
}

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ShapeError(`${what} is not a JSON object`);
  return value as Json;
}

function string(value: Json, field: string): string {
  if (typeof value[field] !== 'string') throw new ShapeError(`${field} is not a string`);
  return value[field] as string;
}

function number(value: Json, field: string): number {
  if (typeof value[field] !== 'number') throw new ShapeError(`${field} is not a number`);
  return value[field] as number;
}
