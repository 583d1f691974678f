// The pino logger. Redaction paths are fixed at start-up, without wildcards
// in the hot path (pino docs/redaction.md: wildcards are measurably slower).
// The pipeline never logs request headers or bodies; these paths are the
// second line of defence should a future log call include them.
import pino, { type DestinationStream, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'api_key',
  'apiKey',
  'key',
  'vector_store.api_key',
  'signingP12Password',
  'p12Password',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ sync: false }),
  );
}
