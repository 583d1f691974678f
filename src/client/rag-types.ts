// The accelerator's retrieval routes (/v1/rag/chunk, embed, index, search)
// as the client's callers see them, in the style of types.ts (which
// re-exports them): field names are the wire's, base64 fields are bytes.

/** POST /v1/rag/chunk */
export interface ChunkRequest {
  readonly pdf_data: Uint8Array;
  readonly password?: string;
  readonly options?: {
    readonly strategy?: 'semantic' | 'fixed' | 'page';
    /** Tokens (o200k_base); 32 to 8192, default 512. */
    readonly max_chunk_size?: number;
    /** Tokens, smaller than max_chunk_size; default a quarter of max_chunk_size, at most 64. */
    readonly chunk_overlap?: number;
    readonly preserve_structure?: boolean;
    /** BCP 47; detected when absent. */
    readonly language?: string;
  };
}

export interface Chunk {
  readonly chunk_id: string;
  readonly text: string;
  readonly page: number;
  readonly section: string;
  readonly token_count: number;
  readonly metadata: { readonly headings_path: readonly string[]; readonly is_table: boolean; readonly language: string | null };
}

export interface ChunkResult {
  readonly document_id: string;
  readonly page_count: number;
  readonly language: string | null;
  readonly tokenizer: string;
  readonly chunk_count: number;
  readonly chunks: readonly Chunk[];
}

/** POST /v1/rag/embed */
export interface EmbedRequest {
  readonly inputs: ReadonlyArray<{ readonly id: string; readonly text: string }>;
  /** `platen-lexical-v1` (the default) or a remote model of the deployment. */
  readonly model?: string;
  readonly options?: { readonly normalize?: boolean; readonly dimensions?: number };
}

export interface EmbedResult {
  readonly model: string;
  readonly dimensions: number;
  readonly embeddings: ReadonlyArray<{ readonly id: string; readonly vector: readonly number[]; readonly token_count: number }>;
}

/** Where /v1/rag/index writes and /v1/rag/search looks: the caller's collection of this name. */
export interface VectorStoreReference {
  /** `embedded` (the default, the server's own store) or `pgvector`. */
  readonly backend?: 'embedded' | 'pgvector';
  /** 1-64 of A-Z a-z 0-9 _ - */
  readonly collection: string;
  /** pgvector: postgres://user@host:5432/database (no password); on search, the one given at index time when absent. */
  readonly endpoint?: string;
  /** pgvector: the database password. */
  readonly api_key?: string;
}

/** POST /v1/rag/index */
export interface IndexRequest {
  readonly pdf_data: Uint8Array;
  readonly password?: string;
  readonly vector_store: VectorStoreReference;
  readonly options?: {
    readonly chunking_strategy?: 'semantic' | 'fixed' | 'page';
    readonly max_chunk_size?: number;
    readonly chunk_overlap?: number;
    readonly preserve_structure?: boolean;
    readonly language?: string;
    /** `platen-lexical-v1` (the default) or a remote model of the deployment. */
    readonly embedding_model?: string;
    readonly dimensions?: number;
    /** Replace the document's earlier chunks (default true). */
    readonly upsert?: boolean;
    readonly namespace?: string;
  };
}

export interface IndexResult {
  readonly document_id: string;
  readonly chunks_indexed: number;
  readonly vectors_upserted: number;
  readonly collection: string;
  readonly namespace: string;
  readonly model: string;
  readonly dimensions: number;
  readonly duration_ms: number;
}

/** POST /v1/rag/search */
export interface SearchRequest {
  readonly query: string;
  readonly vector_store: VectorStoreReference;
  readonly options?: {
    /** 1-100, default 5. */
    readonly top_k?: number;
    readonly min_score?: number;
    readonly namespace?: string;
    /**
     * Required values by path: document_id, chunk_id, section, page, metadata.is_table, metadata.language,
     * metadata.namespace, metadata.token_count; metadata.headings_path takes a heading the path contains
     * (string) or a path it starts with (array of strings).
     */
    readonly filter?: Readonly<Record<string, string | number | boolean | null | readonly string[]>>;
  };
}

export interface SearchHit {
  readonly chunk_id: string;
  readonly document_id: string;
  /** Cosine similarity. */
  readonly score: number;
  readonly text: string;
  readonly page: number;
  readonly section: string;
  readonly metadata: { readonly headings_path: readonly string[]; readonly is_table: boolean; readonly language: string | null; readonly namespace: string; readonly token_count: number };
}

export interface SearchResult {
  readonly results: readonly SearchHit[];
  readonly model: string;
  readonly collection: string;
  readonly namespace: string;
  readonly took_ms: number;
}
