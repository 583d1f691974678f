// Entry point: config → server → graceful shutdown on SIGTERM/SIGINT.
import { ConfigError, loadConfig, unknownVariables, type Config } from './config.js';
import { generateKey } from './auth/generated-key.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`platen: ${error.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  const unknown = unknownVariables();
  if (unknown.length > 0) logger.warn({ variables: unknown }, 'ignoring unknown PLATEN_* variables (a typo, or a feature this version does not have)');

  if (config.apiKeys === undefined && config.apiKeysFile === undefined) {
    const key = generateKey();
    config = Object.freeze({ ...config, apiKeys: `${key}:default:enterprise:` });
    process.stderr.write(
      `\nplaten: WARNING: no PLATEN_API_KEYS or PLATEN_API_KEYS_FILE set; generated one enterprise key for this run only:\n\n    ${key}\n\n` +
        '  Use it as "Authorization: Bearer <key>". Configure keys before production use.\n\n',
    );
  }

  const server = await startServer(config, { logger });
  logger.info({ port: server.port, host: config.host, socket: server.socketPath, edition: config.edition, workers: config.workers, version: config.version }, 'listening');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => {
        logger.info('stopped');
        logger.flush(() => process.exit(0));
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush(() => process.exit(1));
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // A configuration only start-up could check (a key file that does not open) exits as loadConfig's do.
  if (error instanceof ConfigError) {
    process.stderr.write(`platen: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`platen: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
