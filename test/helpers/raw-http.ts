// Raw TCP exchanges for what fetch will not send (malformed requests, parser
// limits) and for timing when the server closes a connection.
import { connect } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface RawAnswer {
  /** Everything the server wrote, latin1. */
  readonly text: string;
  /** The status line, or '' when the server wrote nothing. */
  readonly statusLine: string;
  /** True when the server closed the connection (not our own deadline). */
  readonly closedByServer: boolean;
  /** Milliseconds from the last byte sent to the close (or to our deadline). */
  readonly ms: number;
}

/**
 * Sends `parts` (each written on its own, after the server had a turn of
 * the event loop to read the previous one: the test server runs in this
 * process, and loopback delivers a write at once), then waits for the
 * server to close, at most `deadlineMs`.
 */
export function rawExchange(base: string, parts: readonly (string | Buffer)[], deadlineMs = 2_000): Promise<RawAnswer> {
  const { port } = new URL(base);
  return new Promise((resolve) => {
    let text = '';
    let sentAt = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(Number(port), '127.0.0.1');
    socket.setNoDelay(true);
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, statusLine: text.split('\r\n', 1)[0] ?? '', closedByServer, ms: performance.now() - sentAt });
    };
    socket.on('connect', () => {
      void (async () => {
        for (const [index, part] of parts.entries()) {
          if (index > 0) {
            await nextTurn();
            await nextTurn();
          }
          socket.write(part);
        }
        sentAt = performance.now();
        timer = setTimeout(() => finish(false), deadlineMs);
      })();
    });
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
  });
}

/** `count` distinct header lines of the form `X-Filler-<i>: v`. */
export function fillerHeaders(count: number): string {
  return Array.from({ length: count }, (_, i) => `X-Filler-${i}: v\r\n`).join('');
}
