// The embedded vector store (`vector_store.backend: embedded`, the default):
// LanceDB tables under PLATEN_DATA_DIR/vectors, one per collection, named by
// the owner's digest and the collection's name. The only module that
// imports @lancedb/lancedb.
//
// - Never blocking the main thread: LanceDB's reads, writes and index builds
//   run on its own native (Rust) threads and answer promises.
// - Durable: every write is a committed Lance version on disk before the
//   request is answered.
// - Approximate once large: at PLATEN_VECTOR_INDEX_MIN_ROWS rows a
//   collection gets an HNSW index (hnswSq, cosine), built in the background;
//   until it is built, and for rows added since, LanceDB scans exactly.
//   Rows added later are folded into the index (optimize) once they are a
//   tenth of the collection. Measured here: 10k x 384, HNSW 2.7 ms a query
//   against 20 ms flat on this 2-core machine (LanceDB 0.37.1).
// - Several nodes on one data directory (a shared volume) see the same
//   collections: every read checks for the latest committed version
//   (readConsistencyInterval 0) and Lance commits concurrent writers with
//   optimistic concurrency, retrying on conflict.
// - The model and dimensions are the table's schema metadata, fixed by
//   whoever created the table first.
// - Loaded on first use: LanceDB and Apache Arrow cost a server that never
//   indexes ~280 ms of CPU and ~10 MB of heap at start-up (bench/start-up.ts).
import { join } from 'node:path';
import type * as lancedb from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import type { Logger } from 'pino';
import type { FilterTerm } from '../../../workers/protocol.js';
import { headingsMatch, ModelMismatch, ownerDigest, type CollectionKey, type CollectionModel, type DocumentWrite, type SearchHit, type SearchQuery, type VectorCollections } from './collections.js';

const MODEL_KEY = 'platen.model';
const DIMENSIONS_KEY = 'platen.dimensions';
/** Candidates the HNSW search visits: the default (k * 1.5) misses neighbours on lexical vectors at top_k 5. */
const MIN_EF = 64;

/** The libraries and the connection, once the store is first used. */
interface Opened {
  readonly lancedb: typeof import('@lancedb/lancedb');
  readonly arrow: typeof import('apache-arrow');
  readonly connection: lancedb.Connection;
}

export interface EmbeddedOptions {
  readonly dataDir: string;
  /** Rows at which a collection gets its approximate index (PLATEN_VECTOR_INDEX_MIN_ROWS). */
  readonly indexMinRows: number;
  readonly logger: Logger;
}

export class EmbeddedVectorStore implements VectorCollections {
  /** Opened on first use; a failure surfaces on every request that uses the store. */
  #opened: Promise<Opened> | undefined;
  readonly #tables = new Map<string, Promise<lancedb.Table | undefined>>();
  /** Per table, the index build or optimize under way: one at a time. */
  readonly #maintenance = new Map<string, Promise<void>>();
  readonly #options: EmbeddedOptions;

  constructor(options: EmbeddedOptions) {
    this.#options = options;
  }

  async model(key: CollectionKey): Promise<CollectionModel | undefined> {
    const table = await this.#open(tableName(key));
    return table === undefined ? undefined : modelOf(await table.schema());
  }

  async write(key: CollectionKey, model: CollectionModel, document: DocumentWrite): Promise<number> {
    const name = tableName(key);
    let table = await this.#open(name);
    const { lancedb, arrow, connection } = await this.#connected();
    if (table === undefined) {
      // existOk: a table another request or node created meanwhile is opened as it is, model and all.
      table = await connection.createEmptyTable(name, schemaOf(arrow, model), { mode: 'create', existOk: true });
      this.#tables.set(name, Promise.resolve(table));
    }
    const existing = modelOf(await table.schema());
    if (existing.model !== model.model || existing.dimensions !== model.dimensions) throw new ModelMismatch(existing);
    const rows = document.chunks.map((chunk, i) => ({
      chunk_id: chunk.chunk_id,
      document_id: document.documentId,
      namespace: document.namespace,
      text: chunk.text,
      page: chunk.page,
      section: chunk.section,
      token_count: chunk.token_count,
      headings_path: JSON.stringify(chunk.metadata.headings_path),
      is_table: chunk.metadata.is_table,
      language: chunk.metadata.language ?? '',
      vector: Array.from(document.vectors[i] as Float32Array),
    }));
    const data = lancedb.makeArrowTable(rows, { schema: await table.schema() });
    // Keyed on the chunk and its namespace: the same document may be indexed in several namespaces.
    let merge = table.mergeInsert(['chunk_id', 'namespace']).whenNotMatchedInsertAll();
    if (document.upsert) {
      merge = merge.whenMatchedUpdateAll().whenNotMatchedBySourceDelete({ where: `document_id = ${literal(document.documentId)} AND namespace = ${literal(document.namespace)}` });
    }
    const result = await merge.execute(data);
    this.#maintain(name, table);
    return result.numInsertedRows + result.numUpdatedRows;
  }

  async search(key: CollectionKey, query: SearchQuery): Promise<SearchHit[]> {
    const table = await this.#open(tableName(key));
    if (table === undefined) return [];
    const where = [`namespace = ${literal(query.namespace)}`, ...query.filter.flatMap(condition)].join(' AND ');
    const rows = await table
      .vectorSearch(Array.from(query.vector))
      .distanceType('cosine')
      .ef(Math.max(MIN_EF, query.topK * 4))
      .where(where)
      // `_distance` named: LanceDB 0.37 adds it anyway but prints a deprecation WARN to stderr on every search that leaves it out.
      .select(['chunk_id', 'document_id', 'namespace', 'text', 'page', 'section', 'token_count', 'headings_path', 'is_table', 'language', '_distance'])
      .limit(query.topK)
      .toArray();
    const hits: SearchHit[] = [];
    for (const row of rows as Record<string, unknown>[]) {
      // Cosine distance is 1 - cosine similarity.
      const score = 1 - Number(row._distance);
      if (query.minScore !== null && score < query.minScore) continue;
      hits.push({
        chunk_id: String(row.chunk_id),
        document_id: String(row.document_id),
        score,
        text: String(row.text),
        page: Number(row.page),
        section: String(row.section),
        metadata: {
          headings_path: JSON.parse(String(row.headings_path)) as string[],
          is_table: row.is_table === true,
          language: row.language === '' ? null : String(row.language),
          namespace: String(row.namespace),
          token_count: Number(row.token_count),
        },
      });
    }
    return hits;
  }

  /** Waits for index builds under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#maintenance.size > 0) await Promise.all(this.#maintenance.values());
  }

  async close(): Promise<void> {
    await this.settled();
    // A connection that never opened (or failed to) has nothing to close.
    await this.#opened?.then(({ connection }) => connection.close(), () => undefined);
  }

  #connected(): Promise<Opened> {
    this.#opened ??= (async () => {
      const [lancedb, arrow] = await Promise.all([import('@lancedb/lancedb'), import('apache-arrow')]);
      return { lancedb, arrow, connection: await lancedb.connect(join(this.#options.dataDir, 'vectors'), { readConsistencyInterval: 0 }) };
    })();
    return this.#opened;
  }

  #open(name: string): Promise<lancedb.Table | undefined> {
    let table = this.#tables.get(name);
    if (table === undefined) {
      table = this.#connected().then(async ({ connection }) => {
        try {
          return await connection.openTable(name);
        } catch (error) {
          // Not cached: the table may be created later, here or by another node.
          this.#tables.delete(name);
          if (/not found|does not exist/i.test(String((error as Error).message))) return undefined;
          throw error;
        }
      });
      this.#tables.set(name, table);
    }
    return table;
  }

  /** Builds the approximate index once the table is large enough, or folds new rows into it; one at a time per table. */
  #maintain(name: string, table: lancedb.Table): void {
    if (this.#maintenance.has(name)) return;
    const work = (async () => {
      const rows = await table.countRows();
      if (rows < this.#options.indexMinRows) return;
      const stats = await table.indexStats('vector_idx');
      if (stats === undefined) {
        const { lancedb } = await this.#connected();
        await table.createIndex('vector', { config: lancedb.Index.hnswSq({ distanceType: 'cosine' }), replace: false });
        this.#options.logger.info({ rows }, 'vector collection indexed (hnswSq)');
      } else if (stats.numUnindexedRows > stats.numIndexedRows / 10) {
        await table.optimize();
      }
    })()
      .catch((error: Error) => this.#options.logger.warn({ err: { message: error.message } }, 'vector index maintenance failed; searches scan exactly until it succeeds'))
      .finally(() => this.#maintenance.delete(name));
    this.#maintenance.set(name, work);
  }
}

function tableName(key: CollectionKey): string {
  return `c${ownerDigest(key.owner)}_${key.name}`;
}

function schemaOf({ Bool, Field, FixedSizeList, Float32, Int32, Schema, Utf8 }: Opened['arrow'], model: CollectionModel): Schema {
  return new Schema(
    [
      new Field('chunk_id', new Utf8(), false),
      new Field('document_id', new Utf8(), false),
      new Field('namespace', new Utf8(), false),
      new Field('text', new Utf8(), false),
      new Field('page', new Int32(), false),
      new Field('section', new Utf8(), false),
      new Field('token_count', new Int32(), false),
      new Field('headings_path', new Utf8(), false),
      new Field('is_table', new Bool(), false),
      new Field('language', new Utf8(), false),
      new Field('vector', new FixedSizeList(model.dimensions, new Field('item', new Float32(), true)), false),
    ],
    new Map([
      [MODEL_KEY, model.model],
      [DIMENSIONS_KEY, String(model.dimensions)],
    ]),
  );
}

function modelOf(schema: Schema): CollectionModel {
  return { model: schema.metadata.get(MODEL_KEY) ?? '', dimensions: Number(schema.metadata.get(DIMENSIONS_KEY)) };
}

/** An SQL string literal (DataFusion: a quote is doubled, a backslash is an ordinary character). */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A filter term's SQL (DataFusion's dialect), none when it holds for every row. */
function condition(term: FilterTerm): string[] {
  const value = term.value;
  if (term.column === 'headings_path') {
    const match = headingsMatch(value as string | readonly string[]);
    if (match === null) return [];
    if ('containsAnyOf' in match) return [`(${match.containsAnyOf.map((part) => `strpos(headings_path, ${literal(part)}) > 0`).join(' OR ')})`];
    return [`(headings_path = ${literal(match.equals)} OR starts_with(headings_path, ${literal(match.startsWith)}))`];
  }
  if (term.column === 'language' && value === null) return [`language = ''`];
  if (typeof value === 'string') return [`${term.column} = ${literal(value)}`];
  // Integers and booleans, checked by the worker (search-task.ts).
  return [`${term.column} = ${String(value)}`];
}
