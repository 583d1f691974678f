// The render API's capability operations (render spec section 4), one
// declaration each (capability-operation.ts says what a declaration gets).
// The server adds them to its route table; the edition filter there decides
// which exist, the pipeline's tier check which keys may call them.
import type { CertifyOptions, DocOpsOptions, ReadOptions, SignOptions } from '../../workers/protocol.js';
import type { Config } from '../config.js';
import type { Route } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';
import { capabilityRoute, type AnyCapabilityOperation } from './capability-operation.js';

export function capabilityRoutes(pool: WorkerPool, config: Config): Route[] {
  const docops: DocOpsOptions = { maxPages: config.maxPages };
  const signing: SignOptions = { p12File: config.signingP12File, p12Password: config.signingP12Password };
  const read: ReadOptions = { maxPages: config.maxPages, workBudget: config.readWorkBudget };
  const certify: CertifyOptions = { ...read, attestationKeyFile: config.attestationKeyFile, dataDir: config.dataDir };
  const operations: AnyCapabilityOperation[] = [
    { operation: 'extract-text', tier: 'core', task: 'capability-extract-text', result: 'json', options: read },
    { operation: 'compare', tier: 'pro', task: 'capability-compare', result: 'json', options: read },
    { operation: 'merge', tier: 'core', task: 'merge', result: 'binary', options: docops },
    { operation: 'split', tier: 'core', task: 'split', result: 'binary', options: docops },
    { operation: 'sign', tier: 'pro', task: 'sign', result: 'binary', options: signing },
    { operation: 'fill-form', tier: 'pro', task: 'fill-form', result: 'binary', options: docops },
    { operation: 'optimize', tier: 'pro', task: 'optimize', result: 'binary', options: docops },
    { operation: 'redact', tier: 'pro', task: 'redact', result: 'binary', options: docops },
    { operation: 'check-accessibility', tier: 'pro', task: 'check-accessibility', result: 'json', options: {} },
    { operation: 'compliance-check', tier: 'enterprise', task: 'compliance-check', result: 'json', options: {} },
    { operation: 'forensic-analyze', tier: 'enterprise', task: 'forensic-analyze', result: 'json', options: read },
    { operation: 'ai-certify', tier: 'enterprise', task: 'ai-certify', result: 'json', options: certify },
  ];
  return operations.map((operation) => capabilityRoute(pool, config.version, operation));
}
