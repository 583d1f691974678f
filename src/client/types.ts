// The accelerator's request and response shapes, from its spec (sections 2
// and 4), as the client's callers see them: field names are the wire's,
// and every base64 field is bytes (Uint8Array in, Buffer out); the client
// does the base64 both ways.

/** The health record of GET /health (not enveloped). */
export interface HealthRecord {
  readonly status: string;
  readonly version: string;
  readonly tier: string;
  readonly mode: string;
  readonly workers: { readonly total: number; readonly busy: number; readonly idle: number };
  readonly uptime_seconds: number;
  /** `closed`, `open` or `half_open` on this server. */
  readonly circuit_breaker: string;
}

/** The success envelope around every /v1 operation's `data`. */
export interface AccelResponse<Data> {
  readonly request_id: string;
  readonly version: string;
  readonly data: Data;
  readonly meta: { readonly duration_ms: number; readonly worker_id: string; readonly cached: boolean };
}

/** POST /v1/font/subset */
export interface SubsetFontRequest {
  readonly font_data: Uint8Array;
  readonly codepoints: readonly number[];
  readonly options?: {
    readonly preserve_hints?: boolean;
    readonly optimize_cff?: boolean;
    readonly include_gsub?: boolean;
  };
}

export interface SubsetFontResult {
  readonly font_data: Buffer;
  readonly original_size_bytes: number;
  readonly subset_size_bytes: number;
  readonly reduction_percent: number;
  readonly included_glyphs: number;
}

/** POST /v1/image/compress */
export interface CompressImageRequest {
  readonly image_data: Uint8Array;
  /** The spec uses `jpeg`; the other values are the server's to list. */
  readonly format: string;
  readonly options?: {
    readonly quality?: number;
    readonly max_width?: number;
    readonly max_height?: number;
    /** The spec uses `lanczos`. */
    readonly resample?: string;
    /** The spec uses `rgb`. */
    readonly color_space?: string;
  };
}

export interface CompressImageResult {
  readonly image_data: Buffer;
  readonly original_size_bytes: number;
  readonly compressed_size_bytes: number;
  readonly width: number;
  readonly height: number;
  readonly format: string;
}

/** POST /v1/linearize */
export interface LinearizeRequest {
  readonly pdf_data: Uint8Array;
  readonly options?: {
    readonly optimize_for_web?: boolean;
    readonly preserve_signatures?: boolean;
  };
}

/**
 * The spec does not show the linearize response. The client decodes
 * `pdf_data` (named like the request's field) and passes every other field
 * through as the server sent it.
 */
export type LinearizeResult = { readonly pdf_data: Buffer } & Readonly<Record<string, unknown>>;

/** POST /v1/extract-text (pro and above). */
export interface ExtractTextRequest {
  readonly pdf_data: Uint8Array;
  readonly password?: string;
  readonly options?: {
    /** [first, last], 1-based, inclusive; `last` past the end is clamped. */
    readonly page_range?: readonly [number, number];
    readonly granularity?: 'span' | 'word' | 'char';
    /** BCP 47 tag for cutting words in scripts written without spaces. */
    readonly language_hint?: string;
  };
}

/** A run of text, word or character, in points from the displayed page's top-left corner, y down. */
export interface TextSpan {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly font: string;
  readonly font_size: number;
  /** "#rrggbb" */
  readonly color: string;
  readonly bold: boolean;
  readonly italic: boolean;
  readonly rotation: number;
  readonly invisible: boolean;
  readonly reading_order: number;
}

export interface ExtractTextResult {
  readonly page_count: number;
  /** Set when a damaged PDF was read by rebuilding its cross-reference table. */
  readonly notice: string | null;
  readonly pages: ReadonlyArray<{ readonly page_number: number; readonly width: number; readonly height: number; readonly spans: readonly TextSpan[] }>;
}

/** POST /v1/compare (pro and above): the changes that turn `pdf_a` into `pdf_b`. */
export interface CompareRequest {
  readonly pdf_a: Uint8Array;
  readonly pdf_b: Uint8Array;
  readonly password_a?: string;
  readonly password_b?: string;
  readonly options?: {
    /** Default `semantic`: words normalised and in reading order, so re-flowed text is no change. */
    readonly mode?: 'text' | 'semantic';
    /** Default false: shared words in another font, size or colour are `format` changes. */
    readonly ignore_formatting?: boolean;
    /** [first, last] of both documents, 1-based, inclusive; null or absent: every page. */
    readonly page_range?: readonly [number, number] | null;
  };
}

export type CompareChangeType =
  | 'addition'
  | 'deletion'
  | 'modification'
  | 'format'
  | 'image_added'
  | 'image_removed'
  | 'image_changed'
  | 'page_added'
  | 'page_removed';

export interface CompareChange {
  readonly type: CompareChangeType;
  /** In B for what B has (addition, modification, format, image_added, image_changed, page_added), in A otherwise. */
  readonly page: number;
  readonly before: string;
  readonly after: string;
  /** Points from the page's top-left corner, y down. */
  readonly position: { readonly x: number; readonly y: number };
  /** `format` changes: the words whose formatting changed. */
  readonly text?: string;
}

export interface CompareResult {
  readonly summary: { readonly pages_changed: number; readonly text_additions: number; readonly text_deletions: number; readonly image_changes: number };
  readonly changes: readonly CompareChange[];
  /** More than 5,000 changes: only the first 5,000 are listed. */
  readonly changes_truncated: boolean;
}

/** POST /v1/parse (pro and above). */
export interface ParseRequest {
  readonly pdf_data: Uint8Array;
  readonly password?: string;
  readonly options?: {
    readonly extract_text?: boolean;
    readonly extract_tables?: boolean;
    readonly extract_forms?: boolean;
    readonly extract_images?: boolean;
    readonly extract_bookmarks?: boolean;
    readonly page_range?: readonly [number, number];
    readonly language_hint?: string;
  };
}

export interface ParsedPage {
  readonly page_number: number;
  readonly width: number;
  readonly height: number;
  readonly text_blocks: ReadonlyArray<{
    readonly text: string;
    readonly x: number;
    readonly y: number;
    readonly width: number;
    readonly height: number;
    readonly font: string;
    readonly font_size: number;
    readonly reading_order: number;
  }>;
  readonly tables: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly form_fields: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly images?: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

export interface ParseResult {
  readonly page_count: number;
  readonly notice: string | null;
  readonly metadata: Readonly<Record<string, string | boolean | null>>;
  readonly pages: readonly ParsedPage[];
  readonly bookmarks?: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/** GET /v1/cluster/status */
export interface ClusterNode {
  readonly node_id: string;
  readonly address: string;
  /** The spec shows `healthy`. */
  readonly status: string;
  readonly active_jobs: number;
  readonly cpu_percent: number;
  readonly memory_mb: number;
}

export interface ClusterStatus {
  readonly cluster_id: string;
  readonly node_count: number;
  readonly healthy_nodes: number;
  readonly nodes: readonly ClusterNode[];
}

/** A problem document (RFC 9457) as the accelerator sends it (spec section 7). */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string;
  readonly request_id?: string;
  readonly retry_after?: number;
  readonly errors?: ReadonlyArray<{ readonly field: string; readonly code: string; readonly message: string }>;
  readonly [member: string]: unknown;
}

/** The render API's success envelope (`{data, meta}`), as the registered-font routes answer. */
export interface RenderResponse<Data> {
  readonly data: Data;
  readonly meta: { readonly request_id: string; readonly timestamp: string; readonly duration_ms: number; readonly api_version: string };
}

/** A registered font (PUT /api/v1/fonts/{family}, GET /api/v1/fonts). */
export interface RegisteredFont {
  readonly family: string;
  /** Bytes stored (WOFF and WOFF2 are stored unpacked). */
  readonly size: number;
  readonly sha256: string;
  readonly created_at: string;
  readonly glyphs: number;
  /** The font's own full name. */
  readonly name: string;
}

/** GET /api/v1/fonts: the client's fonts and its limits. */
export interface FontList {
  readonly fonts: readonly RegisteredFont[];
  readonly usage: { readonly count: number; readonly max_count: number; readonly bytes: number; readonly max_bytes: number };
}

/** The media type a font file is sent with; `application/octet-stream` when not given. */
export type FontMediaType = 'font/ttf' | 'font/otf' | 'font/sfnt' | 'font/woff' | 'font/woff2' | 'application/octet-stream';

export type { ChunkRequest, Chunk, ChunkResult, EmbedRequest, EmbedResult, VectorStoreReference, IndexRequest, IndexResult, SearchRequest, SearchHit, SearchResult } from './rag-types.js';
