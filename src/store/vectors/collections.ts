// What /v1/rag/index and /v1/rag/search need of a vector store, whichever it
// is (embedded.ts: LanceDB under PLATEN_DATA_DIR; pgvector.ts: a client's
// PostgreSQL). A collection is named by its owner (the client's key label)
// and its name, so one client never reaches another's: the stores keep the
// owner in the name they store under.
import { createHash } from 'node:crypto';
import type { FilterTerm, PlanChunk } from '../../../workers/protocol.js';

export interface CollectionKey {
  /** The client: its key label (and tenant in high-control mode). */
  readonly owner: string;
  /** The name the client gave, 1-64 of A-Z a-z 0-9 _ - (checked by the worker). */
  readonly name: string;
}

/** Fixed when a collection is created: a query must be embedded the same way. */
export interface CollectionModel {
  readonly model: string;
  readonly dimensions: number;
}

export interface DocumentWrite {
  readonly documentId: string;
  readonly namespace: string;
  /** Replace the document's earlier chunks in this namespace; otherwise keep them and add only chunks not stored yet. */
  readonly upsert: boolean;
  readonly chunks: readonly PlanChunk[];
  /** One unit vector per chunk, in order. */
  readonly vectors: readonly Float32Array[];
}

export interface SearchQuery {
  readonly vector: Float32Array;
  readonly topK: number;
  readonly minScore: number | null;
  readonly namespace: string;
  readonly filter: readonly FilterTerm[];
}

/** A result as POST /v1/rag/search answers it. */
export interface SearchHit {
  readonly chunk_id: string;
  readonly document_id: string;
  /** Cosine similarity, 1 for the same direction. */
  readonly score: number;
  readonly text: string;
  readonly page: number;
  readonly section: string;
  readonly metadata: { readonly headings_path: readonly string[]; readonly is_table: boolean; readonly language: string | null; readonly namespace: string; readonly token_count: number };
}

export interface VectorCollections {
  /** The collection's model, or undefined when the owner has no collection of that name. */
  model(key: CollectionKey): Promise<CollectionModel | undefined>;
  /** Creates the collection on first use; a different model than the collection's is a ModelMismatch. Answers the rows written. */
  write(key: CollectionKey, model: CollectionModel, document: DocumentWrite): Promise<number>;
  search(key: CollectionKey, query: SearchQuery): Promise<SearchHit[]>;
}

/** An index request whose model is not the collection's: its vectors could not be compared with the stored ones. */
export class ModelMismatch extends Error {
  constructor(readonly existing: CollectionModel) {
    super(`the collection holds vectors of ${existing.model} with ${existing.dimensions} dimensions`);
    this.name = 'ModelMismatch';
  }
}

/** The store failed (unreachable, refused, an SQL error): 502, with what it said kept for the log. */
export class VectorStoreFailure extends Error {
  constructor(
    message: string,
    readonly logDetail?: string,
  ) {
    super(message);
    this.name = 'VectorStoreFailure';
  }
}

/** A digest naming the owner in stored names: labels may hold characters a table name may not, and need not be shown. */
export function ownerDigest(owner: string): string {
  return createHash('sha256').update(owner).digest('hex').slice(0, 16);
}

/**
 * What a filter on `metadata.headings_path` asks of the stored column, which
 * both stores keep as the array's JSON text (JSON.stringify, so one spelling
 * for one array). A heading (string) is an element: its JSON string between
 * the array's brackets or commas (inside a JSON string a quote is always
 * escaped, so `,"x"` cannot begin inside another heading). A path (array) is
 * a prefix: the same JSON, or that JSON open for more elements. The empty
 * path starts every path: no condition.
 */
export type HeadingsMatch = { readonly containsAnyOf: readonly string[] } | { readonly equals: string; readonly startsWith: string } | null;

export function headingsMatch(value: string | readonly string[]): HeadingsMatch {
  if (typeof value === 'string') {
    const element = JSON.stringify(value);
    return { containsAnyOf: [`[${element}]`, `[${element},`, `,${element},`, `,${element}]`] };
  }
  if (value.length === 0) return null;
  const path = JSON.stringify(value);
  return { equals: path, startsWith: `${path.slice(0, -1)},` };
}
