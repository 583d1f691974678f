// What the HTTP parser of this uWS build (@trufflesuite/uws-js-unofficial
// 20.30.0-unofficial.0, native) accepts, measured with raw sockets
// (test/http-parser.test.ts proves each figure on both sides). Its limits are
// compile-time constants and its parser errors have no JavaScript hook, so
// what it refuses mostly cannot be answered from here; the README's "HTTP
// parser limits" section lists every case and what the client sees.

/** Header lines (Host included) served; one more and uWS waits for the idle timeout without answering. */
export const MAX_HEADER_LINES = 48;

/**
 * Request line + header lines + the blank line, in bytes, when they arrive
 * in more than one read: uWS gathers them in a 4 KiB buffer and closes the
 * connection at once when it overflows. (A header block that arrives in one
 * read is parsed in place; on loopback that held up to ~128 KiB.)
 */
export const MAX_HEADER_BLOCK_BYTES = 4096;

/**
 * uWS frames a body only by a Content-Length of 1 to 9 decimal digits. Any
 * other value (10 digits or more, a sign, hex) still reaches the route
 * handler, but uWS closes the connection as soon as the handler returns,
 * dropping whatever is still in its cork buffer: the answer must be written
 * before the handler returns and be large enough to leave that buffer.
 */
export function uwsClosesAfterHandler(contentLength: string): boolean {
  return contentLength !== '' && !/^\d{1,9}$/.test(contentLength);
}

/**
 * A write larger than what is left of uWS's 16 KiB cork buffer goes to the
 * socket at once instead of waiting for the handler to return (measured:
 * a 16,161-byte answer was lost to the close above, a 16,545-byte one
 * arrived whole). Answers that must beat that close are padded to this size.
 */
export const CORK_FLUSH_BYTES = 32 * 1024;
