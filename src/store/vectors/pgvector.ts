// The pgvector backend (`vector_store.backend: pgvector`): a client's
// PostgreSQL with the pgvector extension, at the `endpoint` it names, with
// `api_key` as the password, through `pg`. The only module that imports pg.
//
// Created on first use: the extension, a catalogue table
// (platen_collections: a collection's table, model and dimensions) and per
// collection a table with a `vector(d)` column and an HNSW index
// (vector_cosine_ops). Table names are digests of the owner and the
// collection's name, so two clients sharing one database never share a table.
// Connections go to the address the AddressPolicy checked (no second DNS
// lookup); pools are kept per endpoint and credentials, at most
// PLATEN_PGVECTOR_MAX_POOLS of them (least recently used out, lease-cache.ts),
// each of at most PLATEN_PGVECTOR_POOL_SIZE connections that close after
// PLATEN_PGVECTOR_IDLE_MS unused, and all closed with the server. Errors become VectorStoreFailure (502) with a detail that names the
// failure but never the password; what PostgreSQL said goes to the log.
// pg is loaded with the first pool: a server that never reaches a pgvector
// database does not pay its start-up (~45 ms of CPU, ~4 MB of heap).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { FilterTerm } from '../../../workers/protocol.js';
import type { AddressPolicy } from './address-policy.js';
import { LeaseCache } from './lease-cache.js';
import { headingsMatch, ModelMismatch, VectorStoreFailure, type CollectionKey, type CollectionModel, type DocumentWrite, type SearchHit, type SearchQuery, type VectorCollections } from './collections.js';

/** pg's own limit is 65,535 parameters; rows of 11 go in batches well under it. */
const ROWS_PER_INSERT = 200;
const CONNECT_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 30_000;

export interface PgEndpoint {
  readonly endpoint: string;
  readonly apiKey: string | null;
}

/** How many pools, of how many connections, idle for how long (PLATEN_PGVECTOR_MAX_POOLS, _POOL_SIZE, _IDLE_MS). */
export interface PgPoolLimits {
  readonly maxPools: number;
  readonly poolSize: number;
  readonly idleMs: number;
}

export class PgvectorStores {
  readonly #pools: LeaseCache<PgCollections>;
  readonly #policy: AddressPolicy;
  readonly #limits: PgPoolLimits;

  constructor(policy: AddressPolicy, limits: PgPoolLimits) {
    this.#policy = policy;
    this.#limits = limits;
    this.#pools = new LeaseCache({
      capacity: limits.maxPools,
      close: (collections) => collections.close(),
    });
  }

  /** Pools kept now (at most PLATEN_PGVECTOR_MAX_POOLS). */
  get poolCount(): number {
    return this.#pools.size;
  }

  /**
   * Runs `work` with the collections at an endpoint, its pool leased until
   * `work` settles; AddressDenied when the host is not one this server may reach.
   */
  use<R>(target: PgEndpoint, work: (collections: PgCollections) => Promise<R>): Promise<R> {
    const id = createHash('sha256').update(`${target.endpoint}\u0000${target.apiKey ?? ''}`).digest('hex');
    // A refused address is not remembered (LeaseCache keeps no failed opening): the policy is asked again.
    return this.#pools.use(id, () => this.#connect(target), work);
  }

  close(): Promise<void> {
    return this.#pools.close();
  }

  async #connect(target: PgEndpoint): Promise<PgCollections> {
    const url = new URL(target.endpoint);
    const { address } = await this.#policy.resolve(url.hostname);
    const sslmode = url.searchParams.get('sslmode') ?? 'disable';
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const { Pool } = (await import('pg')).default;
    const pool = new Pool({
      host: address,
      port: url.port === '' ? 5432 : Number(url.port),
      database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
      user: decodeURIComponent(url.username) || 'postgres',
      ...(target.apiKey === null ? {} : { password: target.apiKey }),
      ssl: sslmode === 'disable' ? false : { servername: hostname, rejectUnauthorized: sslmode === 'verify-full' },
      max: this.#limits.poolSize,
      idleTimeoutMillis: this.#limits.idleMs,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      application_name: 'platen',
    });
    // An idle client's error (the server went away) must not crash the process; the next query reports it.
    pool.on('error', () => undefined);
    return new PgCollections(pool, target.apiKey);
  }
}

export class PgCollections implements VectorCollections {
  readonly #pool: pg.Pool;
  readonly #secret: string | null;
  /** Tables known to exist, with their model. */
  readonly #ready = new Map<string, CollectionModel>();

  constructor(pool: pg.Pool, secret: string | null) {
    this.#pool = pool;
    this.#secret = secret;
  }

  async model(key: CollectionKey): Promise<CollectionModel | undefined> {
    const table = tableName(key);
    const known = this.#ready.get(table);
    if (known !== undefined) return known;
    return this.#run(async (client) => {
      const catalogue = await client.query<{ present: boolean }>(`SELECT to_regclass('platen_collections') IS NOT NULL AS present`);
      if (catalogue.rows[0]?.present !== true) return undefined;
      const found = await client.query<{ model: string; dimensions: number }>('SELECT model, dimensions FROM platen_collections WHERE table_name = $1', [table]);
      const row = found.rows[0];
      return row === undefined ? undefined : { model: row.model, dimensions: row.dimensions };
    });
  }

  async write(key: CollectionKey, model: CollectionModel, document: DocumentWrite): Promise<number> {
    const table = tableName(key);
    await this.#ensure(table, model);
    return this.#run(async (client) => {
      await client.query('BEGIN');
      try {
        if (document.upsert) {
          await client.query(`DELETE FROM "${table}" WHERE document_id = $1 AND namespace = $2 AND NOT (chunk_id = ANY($3))`, [
            document.documentId,
            document.namespace,
            document.chunks.map((c) => c.chunk_id),
          ]);
        }
        let written = 0;
        for (let start = 0; start < document.chunks.length; start += ROWS_PER_INSERT) {
          const values: unknown[] = [];
          const rows: string[] = [];
          document.chunks.slice(start, start + ROWS_PER_INSERT).forEach((chunk, i) => {
            const at = values.length;
            rows.push(`(${Array.from({ length: 11 }, (_, k) => `$${at + k + 1}`).join(', ')})`);
            values.push(
              chunk.chunk_id,
              document.namespace,
              document.documentId,
              chunk.text,
              chunk.page,
              chunk.section,
              chunk.token_count,
              JSON.stringify(chunk.metadata.headings_path),
              chunk.metadata.is_table,
              chunk.metadata.language,
              vectorLiteral(document.vectors[start + i] as Float32Array),
            );
          });
          const conflict = document.upsert
            ? 'DO UPDATE SET document_id = EXCLUDED.document_id, text = EXCLUDED.text, page = EXCLUDED.page, section = EXCLUDED.section, token_count = EXCLUDED.token_count, headings_path = EXCLUDED.headings_path, is_table = EXCLUDED.is_table, language = EXCLUDED.language, embedding = EXCLUDED.embedding'
            : 'DO NOTHING';
          const result = await client.query(
            `INSERT INTO "${table}" (chunk_id, namespace, document_id, text, page, section, token_count, headings_path, is_table, language, embedding) VALUES ${rows.join(', ')} ON CONFLICT (namespace, chunk_id) ${conflict}`,
            values,
          );
          written += result.rowCount ?? 0;
        }
        await client.query('COMMIT');
        return written;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async search(key: CollectionKey, query: SearchQuery): Promise<SearchHit[]> {
    const table = tableName(key);
    const values: unknown[] = [vectorLiteral(query.vector), query.namespace];
    const conditions = ['namespace = $2', ...query.filter.flatMap((term) => condition(term, values))];
    values.push(query.topK);
    const rows = await this.#run(async (client) => {
      await client.query('BEGIN');
      try {
        // The HNSW scan's candidate list (default 40): at least four per result wanted, as the embedded store does.
        await client.query(`SET LOCAL hnsw.ef_search = ${Math.max(64, query.topK * 4)}`);
        const result = await client.query<Record<string, unknown>>(
          `SELECT chunk_id, document_id, namespace, text, page, section, token_count, headings_path, is_table, language, 1 - (embedding <=> $1) AS score
           FROM "${table}" WHERE ${conditions.join(' AND ')} ORDER BY embedding <=> $1 LIMIT $${values.length}`,
          values,
        );
        await client.query('COMMIT');
        return result.rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    return rows
      .map((row) => ({
        chunk_id: String(row.chunk_id),
        document_id: String(row.document_id),
        score: Number(row.score),
        text: String(row.text),
        page: Number(row.page),
        section: String(row.section),
        metadata: {
          headings_path: JSON.parse(String(row.headings_path)) as string[],
          is_table: row.is_table === true,
          language: row.language === null ? null : String(row.language),
          namespace: String(row.namespace),
          token_count: Number(row.token_count),
        },
      }))
      .filter((hit) => query.minScore === null || hit.score >= query.minScore);
  }

  close(): Promise<void> {
    return this.#pool.end();
  }

  async #ensure(table: string, model: CollectionModel): Promise<void> {
    const known = this.#ready.get(table) ?? (await this.#run((client) => createCollection(client, table, model)));
    this.#ready.set(table, known);
    if (known.model !== model.model || known.dimensions !== model.dimensions) throw new ModelMismatch(known);
  }

  async #run<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.#failure(error, true);
    }
    try {
      return await work(client);
    } catch (error) {
      if (error instanceof ModelMismatch) throw error;
      throw this.#failure(error, false);
    } finally {
      client.release();
    }
  }

  #failure(error: unknown, connecting: boolean): VectorStoreFailure {
    const e = error as { code?: string; message?: string };
    const said = this.#secret === null || this.#secret === '' ? String(e.message) : String(e.message).split(this.#secret).join('[redacted]');
    if (e.code === '28P01' || e.code === '28000') return new VectorStoreFailure('the database refused the credentials (user in endpoint, password as api_key)', said);
    if (e.code === '3D000') return new VectorStoreFailure('the database named in endpoint does not exist', said);
    if (e.code === '42501') return new VectorStoreFailure('the database user lacks a privilege this needs (CREATE on the schema, or the vector extension)', said);
    if (e.code === '0A000' || /extension "vector"/.test(said)) return new VectorStoreFailure('the database has no pgvector extension (CREATE EXTENSION vector)', said);
    if (connecting) return new VectorStoreFailure(`the database could not be reached (${e.code ?? 'connection error'})`, said);
    return new VectorStoreFailure(`the database answered an error${e.code === undefined ? '' : ` (SQLSTATE ${e.code})`}`, said);
  }
}

async function createCollection(client: pg.PoolClient, table: string, model: CollectionModel): Promise<CollectionModel> {
  await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  await client.query('CREATE TABLE IF NOT EXISTS platen_collections (table_name text PRIMARY KEY, model text NOT NULL, dimensions integer NOT NULL)');
  await client.query('INSERT INTO platen_collections (table_name, model, dimensions) VALUES ($1, $2, $3) ON CONFLICT (table_name) DO NOTHING', [table, model.model, model.dimensions]);
  const row = (await client.query<{ model: string; dimensions: number }>('SELECT model, dimensions FROM platen_collections WHERE table_name = $1', [table])).rows[0];
  const stored = row === undefined ? model : { model: row.model, dimensions: row.dimensions };
  await client.query(
    `CREATE TABLE IF NOT EXISTS "${table}" (
       chunk_id text NOT NULL, namespace text NOT NULL, document_id text NOT NULL, text text NOT NULL,
       page integer NOT NULL, section text NOT NULL, token_count integer NOT NULL, headings_path text NOT NULL,
       is_table boolean NOT NULL, language text, embedding vector(${stored.dimensions}) NOT NULL,
       PRIMARY KEY (namespace, chunk_id))`,
  );
  await client.query(`CREATE INDEX IF NOT EXISTS "${table}_hnsw" ON "${table}" USING hnsw (embedding vector_cosine_ops)`);
  await client.query(`CREATE INDEX IF NOT EXISTS "${table}_document" ON "${table}" (namespace, document_id)`);
  return stored;
}

/** The table of a collection: lower-case hex, so it needs no quoting rules beyond the quotes it gets. */
function tableName(key: CollectionKey): string {
  return `platen_${createHash('sha256').update(`${key.owner}\u0000${key.name}`).digest('hex').slice(0, 24)}`;
}

/** pgvector's text form, '[x,y,...]'. */
function vectorLiteral(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}

/** A filter term's SQL, its values appended to `values`; none when it holds for every row. */
function condition(term: FilterTerm, values: unknown[]): string[] {
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (term.column === 'headings_path') {
    const match = headingsMatch(term.value as string | readonly string[]);
    if (match === null) return [];
    if ('containsAnyOf' in match) return [`(${match.containsAnyOf.map((part) => `strpos(headings_path, ${parameter(part)}) > 0`).join(' OR ')})`];
    return [`(headings_path = ${parameter(match.equals)} OR starts_with(headings_path, ${parameter(match.startsWith)}))`];
  }
  if (term.column === 'language' && term.value === null) return ['language IS NULL'];
  // The column is one of FilterColumn's names (workers/rag/search-task.ts), never the client's text.
  return [`${term.column} = ${parameter(term.value)}`];
}
