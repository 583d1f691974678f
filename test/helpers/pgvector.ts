// A real PostgreSQL-protocol server with pgvector for the tests: PGlite
// (PostgreSQL compiled to WebAssembly) with its vector extension, served on
// a loopback port by pglite-socket. The server under test reaches it with
// `pg` over TCP exactly as it would reach a production database. PGlite
// checks no password: the tests pass one anyway, to prove it is never
// echoed or logged.
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface TestPgvector {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly endpoint: string;
  readonly port: number;
  /** Direct SQL on the database, for checks of what the server created. */
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export async function startPgvector(): Promise<TestPgvector> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    endpoint: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    query: async <Row>(sql: string, params: unknown[] = []) => (await db.query<Row>(sql, params)).rows,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
