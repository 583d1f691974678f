// The `check-deployment` task: reads the key files the configuration names
// (PLATEN_SIGNING_P12_FILE with its password, PLATEN_ATTESTATION_KEY_FILE)
// once at start-up, before the server listens. Without it, a missing,
// unreadable or wrong file surfaced as a 500 on the first sign or ai-certify
// request, long after the operator had left; with it, the server refuses to
// start with a message naming the variable. The parsing runs here, in a
// worker, because the main thread never holds a private key; and the cached
// identity is what the first request on this thread then uses.
//
// The detail never carries a key's bytes or the password: only the variable,
// the file's path (the operator's own setting) and what is wrong with it,
// one problem a line.
import { performance } from 'node:perf_hooks';
import type { DeploymentCheckOptions, Outcome, TaskInput } from './protocol.js';
import { attestationKey, AttestationKeyError } from './analysis/certify/attestation-key.js';
import { deploymentIdentity } from './sign/deployment-identity.js';
import { IdentityError } from './sign/identity.js';

export async function checkDeployment(input: TaskInput<DeploymentCheckOptions>): Promise<Outcome> {
  const started = performance.now();
  const problems = [...(await signingProblems(input.options)), ...(await attestationProblems(input.options))];
  const timings = { taskMs: performance.now() - started };
  if (problems.length > 0) return { ok: false, code: 'invalid', detail: problems.join('\n'), timings };
  return { ok: true, value: { body: new ArrayBuffer(0), mediaType: 'application/octet-stream' }, timings };
}

async function signingProblems(options: DeploymentCheckOptions): Promise<string[]> {
  if (options.p12File === undefined) {
    return options.p12Password === undefined ? [] : ['PLATEN_SIGNING_P12_PASSWORD is set without PLATEN_SIGNING_P12_FILE'];
  }
  try {
    await deploymentIdentity(options.p12File, options.p12Password ?? '');
    return [];
  } catch (error) {
    if (error instanceof IdentityError) {
      const hint = /password/.test(error.message) ? ' (check PLATEN_SIGNING_P12_PASSWORD)' : '';
      return [`PLATEN_SIGNING_P12_FILE (${options.p12File}) ${error.message}${hint}`];
    }
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (typeof code === 'string') return [`PLATEN_SIGNING_P12_FILE (${options.p12File}) cannot be read (${code})`];
    return [`PLATEN_SIGNING_P12_FILE (${options.p12File}) is not a usable PKCS#12 identity`];
  }
}

async function attestationProblems(options: DeploymentCheckOptions): Promise<string[]> {
  if (options.attestationKeyFile === undefined) return [];
  try {
    await attestationKey(options.attestationKeyFile, options.dataDir);
    return [];
  } catch (error) {
    if (error instanceof AttestationKeyError) return [`${error.message} (${options.attestationKeyFile})`];
    return [`PLATEN_ATTESTATION_KEY_FILE (${options.attestationKeyFile}) is not a usable Ed25519 private key`];
  }
}
