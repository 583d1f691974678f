// A lean HTTP/1.1 client for closed-loop load (loadgen.ts `client: 'raw'`):
// one keep-alive socket per connection, the request written as prebuilt
// bytes, the answer read only for its status and its end. node:http's
// client cost the bench process 1.3-2.5 ms of CPU a request on split and
// fill-form (bench:large's "HTTP client µs/req", load 13), more than the
// server's main thread, and on the same two cores as the server's workers:
// a cost the bare pool's side never pays, which the ratio charged to the
// server. This client reads no header it does not need (the status, the
// framing: Content-Length, chunked, close) and makes no objects per header.
import { connect, type Socket } from 'node:net';

export interface RawRequest {
  readonly host: string;
  readonly port: number;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
}

const CRLF_CRLF = Buffer.from('\r\n\r\n');

/** The request head up to (not including) Content-Length; one string per target, built once. */
export function requestHead(request: RawRequest): string {
  let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${request.host}:${request.port}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() !== 'content-length') head += `${name}: ${value}\r\n`;
  }
  return head;
}

/** The framing of one answer, read from its head. */
interface Framing {
  readonly status: number;
  /** Body bytes still to come, or -1: chunked; -2: until the connection closes. */
  readonly length: number;
  readonly close: boolean;
}

function parseHead(head: string): Framing {
  const status = Number(head.slice(9, 12));
  if (!head.startsWith('HTTP/1.') || !Number.isInteger(status)) throw new Error(`not an HTTP answer: ${head.slice(0, 80)}`);
  const lower = head.toLowerCase();
  const close = /\r\nconnection:\s*close/.test(lower);
  const lengthMatch = /\r\ncontent-length:\s*(\d+)/.exec(lower);
  if (lengthMatch !== null) return { status, length: Number(lengthMatch[1]), close };
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(lower)) return { status, length: -1, close };
  // 204, 304 and 1xx carry no body.
  if (status === 204 || status === 304 || status < 200) return { status, length: 0, close };
  return { status, length: -2, close: true };
}

/** Reads a chunked body as it arrives; `feed` says whether the last chunk (and the CRLF after it) has come. */
class ChunkedReader {
  #pending: Buffer = Buffer.alloc(0);
  /** Bytes of chunk data (plus its CRLF) still to skip. */
  #skip = 0;

  feed(data: Buffer): boolean {
    const buffer = this.#pending.length > 0 ? Buffer.concat([this.#pending, data]) : data;
    let at = 0;
    for (;;) {
      if (this.#skip > 0) {
        const take = Math.min(this.#skip, buffer.length - at);
        this.#skip -= take;
        at += take;
        if (this.#skip > 0) break;
      }
      const end = buffer.indexOf('\r\n', at);
      if (end === -1) break;
      const size = Number.parseInt(buffer.toString('latin1', at, end), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size');
      // The last chunk; no trailers come to this client, so one CRLF ends the body.
      if (size === 0) return buffer.indexOf('\r\n', end + 2) !== -1;
      at = end + 2;
      this.#skip = size + 2;
    }
    this.#pending = buffer.subarray(at);
    return false;
  }
}

/** One keep-alive connection: `send` resolves with the status once the whole answer has arrived. */
export class RawConnection {
  #socket: Socket | undefined;
  #head: Buffer[] = [];
  #headBytes = 0;
  #framing: Framing | undefined;
  #remaining = 0;
  #chunked: ChunkedReader | undefined;
  #resolve: ((status: number) => void) | undefined;
  #reject: ((error: Error) => void) | undefined;
  /** Set by `exchange`: the answer's head and body are kept. */
  #kept: { head: string; body: Buffer[] } | undefined;

  constructor(private readonly target: RawRequest) {}

  /**
   * As `send`, keeping the answer's head (its header lines, for e.g.
   * Retry-After) and body: for the job scenario's submissions and polls,
   * which read a job id or state from a small JSON answer. Only answers
   * framed by Content-Length (all of Platen's JSON) keep their body.
   */
  async exchange(head: string, body: Buffer | undefined): Promise<{ readonly status: number; readonly head: string; readonly body: Buffer }> {
    const kept: { head: string; body: Buffer[] } = { head: '', body: [] };
    this.#kept = kept;
    try {
      const status = await this.send(head, body);
      return { status, head: kept.head, body: Buffer.concat(kept.body) };
    } finally {
      this.#kept = undefined;
    }
  }

  send(head: string, body: Buffer | undefined): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      this.#reset();
      const socket = this.#socket ?? this.#open();
      const bytes = body === undefined ? head + '\r\n' : `${head}content-length: ${body.byteLength}\r\n\r\n`;
      socket.cork();
      socket.write(bytes, 'latin1');
      if (body !== undefined) socket.write(body);
      socket.uncork();
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #open(): Socket {
    const socket = connect({ host: this.target.host, port: this.target.port, noDelay: true });
    socket.on('data', (data: Buffer) => {
      try {
        this.#data(data);
      } catch (error) {
        this.#fail(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.on('error', (error) => {
      if (this.#socket === socket) this.#fail(error);
    });
    socket.on('close', () => {
      // A socket we closed ourselves (after a `close` answer) is no longer ours to report on.
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      // An answer delimited by the connection's close is complete now.
      if (this.#framing?.length === -2) return this.#done();
      this.#fail(new Error('connection closed before the answer ended'));
    });
    this.#socket = socket;
    return socket;
  }

  #reset(): void {
    this.#head = [];
    this.#headBytes = 0;
    this.#framing = undefined;
    this.#remaining = 0;
    this.#chunked = undefined;
  }

  #data(data: Buffer): void {
    if (this.#resolve === undefined) return;
    let body = data;
    if (this.#framing === undefined) {
      this.#head.push(data);
      this.#headBytes += data.byteLength;
      const joined = this.#head.length === 1 ? data : Buffer.concat(this.#head, this.#headBytes);
      const end = joined.indexOf(CRLF_CRLF);
      if (end === -1) return;
      this.#framing = parseHead(joined.toString('latin1', 0, end + 2));
      if (this.#kept !== undefined) {
        if (this.#framing.length < 0) throw new Error('exchange() keeps only bodies framed by Content-Length');
        this.#kept.head = joined.toString('latin1', 0, end + 2);
      }
      this.#remaining = this.#framing.length;
      if (this.#framing.length === -1) this.#chunked = new ChunkedReader();
      body = joined.subarray(end + 4);
    }
    if (this.#chunked !== undefined) {
      if (this.#chunked.feed(body)) this.#done();
      return;
    }
    if (this.#remaining === -2) return;
    this.#kept?.body.push(body);
    this.#remaining -= body.byteLength;
    if (this.#remaining <= 0) this.#done();
  }

  #done(): void {
    const framing = this.#framing;
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    if (framing === undefined || resolve === undefined) return;
    if (framing.close) this.close();
    resolve(framing.status);
  }

  #fail(error: Error): void {
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    this.close();
    reject?.(error);
  }
}
