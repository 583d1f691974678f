// POST /v1/rag/embed end to end: the built-in lexical model through the real
// pipeline, and remote models through a small OpenAI-compatible server this
// test starts on loopback (the way a deployment's provider is reached, minus
// the network): batching, the key, Retry-After on 429/503, failures as 502,
// the timeout, and the models a deployment lists.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatenClient } from '../src/client/index.js';
import { renderPdf, textDocument } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const PATH = '/v1/rag/embed';
const PROVIDER_KEY = 'sk-test-provider-key-0123456789';

interface Embedding {
  id: string;
  vector: number[];
  token_count: number;
}

let accel: Contract;

async function call(server: TestServer, body: unknown, key: string = KEYS.enterprise): Promise<{ status: number; body: Node }> {
  const response = await fetch(`${server.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body) });
  return { status: response.status, body: (await assertMatchesContract(accel, 'post', PATH, response)) as Node };
}

const cosine = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

describe('POST /v1/rag/embed with the built-in model', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    accel = await loadContract('accel');
  });
  after(() => s.close());

  test('vectors are deterministic, unit length, of the dimensions asked, and closer for texts that share words', async () => {
    const inputs = [
      { id: 'a', text: 'The harbour master inspects the fishing boats every morning.' },
      { id: 'b', text: 'Every morning the fishing boats are inspected by the harbour master.' },
      { id: 'c', text: 'Quarterly revenue of the software division grew by nine percent.' },
    ];
    const first = await call(s, { inputs, options: { dimensions: 256 } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const data = first.body.data as unknown as { model: string; dimensions: number; embeddings: Embedding[] };
    assert.equal(data.model, 'platen-lexical-v1');
    assert.equal(data.dimensions, 256);
    assert.deepEqual(data.embeddings.map((e) => e.id), ['a', 'b', 'c']);
    for (const e of data.embeddings) {
      assert.equal(e.vector.length, 256);
      assert.ok(Math.abs(cosine(e.vector, e.vector) - 1) < 1e-4);
      assert.ok(e.token_count > 5);
    }
    const [a, b, c] = data.embeddings.map((e) => e.vector) as [number[], number[], number[]];
    assert.ok(cosine(a, b) > 0.5, `similar: ${cosine(a, b)}`);
    assert.ok(cosine(a, c) < 0.2, `unrelated: ${cosine(a, c)}`);
    assert.ok(cosine(a, b) > cosine(a, c) + 0.3);
    const again = await call(s, { inputs: inputs.slice(0, 1), options: { dimensions: 256 } });
    assert.deepEqual((again.body.data as unknown as { embeddings: Embedding[] }).embeddings[0]?.vector, a);
  });

  test('without normalize the vector keeps its length; the default is 384 dimensions', async () => {
    const answer = await call(s, { inputs: [{ id: 'x', text: 'lighthouse lighthouse keeper' }], model: 'platen-lexical-v1', options: { normalize: false } });
    const [e] = (answer.body.data as unknown as { dimensions: number; embeddings: Embedding[] }).embeddings;
    assert.equal(e?.vector.length, 384);
    assert.ok(cosine(e?.vector ?? [], e?.vector ?? []) > 1.5);
  });

  test('bad requests are 422 naming the field: dimensions out of range, unknown model, duplicate ids, no inputs', async () => {
    const cases: [unknown, string, string][] = [
      [{ inputs: [{ id: 'a', text: 'x' }], options: { dimensions: 63 } }, 'options.dimensions', 'OUT_OF_RANGE'],
      [{ inputs: [{ id: 'a', text: 'x' }], options: { dimensions: 4097 } }, 'options.dimensions', 'OUT_OF_RANGE'],
      [{ inputs: [{ id: 'a', text: 'x' }], model: 'text-embedding-3-small' }, 'model', 'UNKNOWN_MODEL'],
      [{ inputs: [{ id: 'a', text: 'x' }, { id: 'a', text: 'y' }] }, 'inputs[1].id', 'DUPLICATE'],
      [{ inputs: [] }, 'inputs', 'TOO_SHORT'],
    ];
    for (const [body, field, code] of cases) {
      const answer = await call(s, body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      const [error] = answer.body.errors as unknown as { field: string; code: string; message: string }[];
      assert.deepEqual([error?.field, error?.code], [field, code], JSON.stringify(answer.body));
    }
    const unknown = await call(s, { inputs: [{ id: 'a', text: 'x' }], model: 'nope' });
    assert.match(String(unknown.body.detail), /platen-lexical-v1/);
  });

  test('pro keys get 403', async () => {
    assert.equal((await call(s, { inputs: [{ id: 'a', text: 'x' }] }, KEYS.pro)).status, 403);
  });
});

/** An OpenAI-compatible /v1/embeddings on loopback whose answers each test scripts. */
class FakeProvider {
  readonly requests: { authorization: string | undefined; body: { model: string; input: string[]; dimensions?: number } }[] = [];
  /** Answers in turn; the last repeats. */
  script: ((req: IncomingMessage, res: ServerResponse, input: string[]) => void)[] = [];
  readonly #server: Server;

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[]; dimensions?: number };
        this.requests.push({ authorization: req.headers.authorization, body });
        const answer = this.script[Math.min(this.requests.length - 1, this.script.length - 1)] ?? FakeProvider.ok;
        answer(req, res, body.input);
      });
    });
  }

  /** A vector per input: its length in the first place, so answers can be told apart. */
  static ok(_req: IncomingMessage, res: ServerResponse, input: string[]): void {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 3, 4] })), model: 'm', usage: { prompt_tokens: 1, total_tokens: 1 } }));
  }

  static status(code: number, headers: Record<string, string> = {}) {
    return (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ error: { message: `failure echoing the key ${PROVIDER_KEY}` } }));
    };
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describe('POST /v1/rag/embed with a remote OpenAI-compatible provider', () => {
  let provider: FakeProvider;
  let s: TestServer;
  before(async () => {
    accel = await loadContract('accel');
    provider = new FakeProvider();
    const url = await provider.listen();
    s = await startTestServer({
      PLATEN_EMBEDDINGS_URL: url,
      PLATEN_EMBEDDINGS_API_KEY: PROVIDER_KEY,
      PLATEN_EMBEDDINGS_MODELS: 'text-embedding-3-small,text-embedding-3-large',
      PLATEN_EMBEDDINGS_BATCH: '2',
      PLATEN_EMBEDDINGS_TIMEOUT_MS: '1500',
    });
  });
  after(async () => {
    await s.close();
    await provider.close();
  });

  const five = ['one', 'three', 'seven', 'eleven', 'thirteen'].map((text, i) => ({ id: `t${i}`, text }));

  test('inputs go in batches with the key; vectors come back in order, normalised', async () => {
    provider.requests.length = 0;
    provider.script = [FakeProvider.ok];
    const answer = await call(s, { inputs: five, model: 'text-embedding-3-small', options: { dimensions: 3 } });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(provider.requests.map((r) => r.body.input), [['one', 'three'], ['seven', 'eleven'], ['thirteen']]);
    assert.ok(provider.requests.every((r) => r.authorization === `Bearer ${PROVIDER_KEY}` && r.body.model === 'text-embedding-3-small' && r.body.dimensions === 3));
    const data = answer.body.data as unknown as { model: string; dimensions: number; embeddings: Embedding[] };
    assert.equal(data.model, 'text-embedding-3-small');
    assert.equal(data.dimensions, 3);
    assert.deepEqual(data.embeddings.map((e) => e.id), five.map((i) => i.id));
    // [len, 3, 4] normalised: the first place still tells the inputs apart.
    const first = data.embeddings.map((e) => e.vector[0] as number);
    five.forEach((input, i) => assert.ok(Math.abs((first[i] as number) - input.text.length / Math.hypot(input.text.length, 3, 4)) < 1e-9));
  });

  test('a 429 or 503 is retried after Retry-After; then the answer is served', async () => {
    provider.requests.length = 0;
    provider.script = [FakeProvider.status(429, { 'retry-after': '0' }), FakeProvider.status(503), FakeProvider.ok];
    const answer = await call(s, { inputs: five.slice(0, 2), model: 'text-embedding-3-large' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(provider.requests.length, 3);
  });

  test('another failure is 502 embeddings-provider-failed, without the provider\'s body or our key', async () => {
    provider.script = [FakeProvider.status(500)];
    const answer = await call(s, { inputs: five.slice(0, 1), model: 'text-embedding-3-small' });
    assert.equal(answer.status, 502);
    assert.match(String(answer.body.type), /\/embeddings-provider-failed$/);
    assert.match(String(answer.body.detail), /answered 500/);
    assert.ok(!JSON.stringify(answer.body).includes(PROVIDER_KEY));
    // The provider's body (which here quotes the key) is logged, without the key.
    const logged = JSON.stringify(s.logs);
    assert.ok(logged.includes('failure echoing the key [redacted]'), 'the provider\'s answer is in the log');
    assert.ok(!logged.includes(PROVIDER_KEY), 'the key is never logged');
  });

  test('a provider that does not answer in time is 502, within the timeout', async () => {
    provider.script = [() => undefined];
    const started = performance.now();
    const answer = await call(s, { inputs: five.slice(0, 1), model: 'text-embedding-3-small' });
    assert.equal(answer.status, 502);
    assert.match(String(answer.body.detail), /did not answer within 1500 ms/);
    assert.ok(performance.now() - started < 5000);
  });

  test('an answer of the wrong shape is 502', async () => {
    provider.script = [(_req, res) => res.end(JSON.stringify({ data: [{ index: 0, embedding: ['x'] }] }))];
    const answer = await call(s, { inputs: five.slice(0, 1), model: 'text-embedding-3-small' });
    assert.equal(answer.status, 502);
  });

  test('an answer naming one index twice is 502, not a 500', async () => {
    provider.script = [(_req, res, input) => res.end(JSON.stringify({ data: input.map(() => ({ index: 0, embedding: [1, 2, 3] })) }))];
    const answer = await call(s, { inputs: five.slice(0, 2), model: 'text-embedding-3-small' });
    assert.equal(answer.status, 502, JSON.stringify(answer.body));
    assert.match(String(answer.body.type), /\/embeddings-provider-failed$/);
    assert.match(String(answer.body.detail), /index 0 twice/);
  });

  test('a vector of zeros is 502, normalised or not: it has no direction to compare', async () => {
    provider.script = [(_req, res, input) => res.end(JSON.stringify({ data: input.map((_, index) => ({ index, embedding: [0, 0, 0] })) }))];
    for (const normalize of [true, false]) {
      const answer = await call(s, { inputs: five.slice(0, 2), model: 'text-embedding-3-small', options: { normalize } });
      assert.equal(answer.status, 502, JSON.stringify(answer.body));
      assert.match(String(answer.body.detail), /vector of zeros/);
    }
  });

  test('huge values normalise to unit vectors instead of overflowing to zeros', async () => {
    provider.script = [(_req, res, input) => res.end(JSON.stringify({ data: input.map((_, index) => ({ index, embedding: [1e308, -1e308, 1e308, 0] })) }))];
    const answer = await call(s, { inputs: five.slice(0, 1), model: 'text-embedding-3-small' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const vector = (answer.body.data as unknown as { embeddings: Embedding[] }).embeddings[0]?.vector ?? [];
    assert.deepEqual(vector.map((x) => Math.round(x * 1e6) / 1e6), [0.57735, -0.57735, 0.57735, 0]);
  });

  test('an unknown model lists the deployment\'s models, remote ones included', async () => {
    const answer = await call(s, { inputs: five.slice(0, 1), model: 'ada' });
    assert.equal(answer.status, 422);
    assert.match(String(answer.body.detail), /platen-lexical-v1, text-embedding-3-small, text-embedding-3-large/);
  });

  test('problems of an unreachable provider are 502 too', async () => {
    const gone = new FakeProvider();
    const url = await gone.listen();
    await gone.close();
    const other = await startTestServer({ PLATEN_EMBEDDINGS_URL: url, PLATEN_EMBEDDINGS_MODELS: 'm' });
    try {
      const answer = await call(other, { inputs: five.slice(0, 1), model: 'm' });
      assert.equal(answer.status, 502);
      assert.match(String(answer.body.detail), /could not be reached \(ECONNREFUSED\)/);
    } finally {
      await other.close();
    }
  });
});

describe('the typed client: chunk() and embed()', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('chunk() sends the PDF as bytes and embed() the chunks, as a client of a RAG pipeline would', async () => {
    const client = new PlatenClient({ baseUrl: s.base, apiKey: KEYS.enterprise });
    try {
      const pdf = await renderPdf(s.base, textDocument('The orchard keeper counts the apple trees in spring.', 'The foundry casts bells in winter.'));
      const chunked = await client.chunk({ pdf_data: pdf, options: { strategy: 'page' } });
      assert.equal(chunked.data.chunk_count, 1);
      assert.match(chunked.data.chunks[0]?.text ?? '', /orchard keeper/);
      const embedded = await client.embed({ inputs: chunked.data.chunks.map((c) => ({ id: c.chunk_id, text: c.text })), options: { dimensions: 64 } });
      assert.equal(embedded.data.embeddings[0]?.id, chunked.data.chunks[0]?.chunk_id);
      assert.equal(embedded.data.embeddings[0]?.vector.length, 64);
    } finally {
      client.close();
    }
  });
});
