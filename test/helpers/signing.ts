// Signing identities made with openssl for the sign tests (RSA 2048 and
// ECDSA P-256, self-signed, PKCS#12 with OpenSSL 3's default PBES2), and
// the checks a relying party makes: the signatures pdfsig sees, the CMS of
// each /Contents with its /ByteRange, verified by `openssl cms -verify`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withFile } from './pdf-tools.js';

const run = promisify(execFile);

export interface TestIdentity {
  readonly p12: Buffer;
  readonly password: string;
  readonly certificatePem: string;
  readonly certificateDer: Buffer;
  /** Where the PKCS#12 file lies, for PLATEN_SIGNING_P12_FILE. */
  readonly p12File: string;
}

/** Makes identities in a temporary directory; `dispose` removes it. */
export async function makeIdentities(): Promise<{ rsa: TestIdentity; ec: TestIdentity; dir: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-signer-'));
  const make = async (name: string, keyArgs: string[]): Promise<TestIdentity> => {
    const [key, cert, p12] = ['key.pem', 'cert.pem', 'id.p12'].map((file) => join(dir, `${name}-${file}`)) as [string, string, string];
    await run('openssl', ['req', '-x509', ...keyArgs, '-nodes', '-subj', `/CN=Platen ${name} test signer`, '-days', '2', '-keyout', key, '-out', cert]);
    await run('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-passout', 'pass:test-pass', '-out', p12]);
    const certificateDer = (await run('openssl', ['x509', '-in', cert, '-outform', 'DER'], { encoding: 'buffer' })).stdout;
    return { p12: await readFile(p12), password: 'test-pass', certificatePem: await readFile(cert, 'utf8'), certificateDer, p12File: p12 };
  };
  const rsa = await make('rsa', ['-newkey', 'rsa:2048']);
  const ec = await make('ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
  return { rsa, ec, dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

export interface PdfSignature {
  readonly validation: string;
  readonly type: string;
}

/** pdfsig's view: each signature's validation line and its type (exit status ignored: non-zero on an invalid one). */
export async function pdfsig(pdf: Uint8Array): Promise<PdfSignature[]> {
  const out = await withFile(pdf, async (path) => {
    try {
      return (await run('pdfsig', [path])).stdout;
    } catch (error) {
      const stdout = (error as { stdout?: string }).stdout;
      if (typeof stdout === 'string') return stdout;
      throw error;
    }
  });
  return out.split(/^Signature #\d+:$/m).slice(1).map((block) => ({
    validation: /Signature Validation: (.*)/.exec(block)?.[1]?.trim() ?? '(none)',
    type: /Signature Type: (.*)/.exec(block)?.[1]?.trim() ?? '(none)',
  }));
}

export interface EmbeddedSignature {
  /** The DER CMS from /Contents, trailing zero padding removed by its own length. */
  readonly cms: Buffer;
  /** The bytes the /ByteRange covers. */
  readonly signed: Buffer;
}

/** Every signature dictionary's /ByteRange and /Contents, read from the file's bytes as a verifier does. */
export function embeddedSignatures(pdf: Uint8Array): EmbeddedSignature[] {
  const bytes = Buffer.from(pdf);
  const text = bytes.toString('latin1');
  return [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((match) => {
    const [a, b, c, d] = match.slice(1, 5).map(Number) as [number, number, number, number];
    const hex = text.slice(a + b + 1, c - 1);
    const der = Buffer.from(hex, 'hex');
    // DER SEQUENCE with a long-form length: 0x30 0x82 hi lo (any CMS here is > 255 bytes).
    const length = der[1] === 0x82 ? 4 + der.readUInt16BE(2) : 5 + der.readUIntBE(2, 3);
    return { cms: der.subarray(0, length), signed: Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(c, c + d)]) };
  });
}

/** `openssl cms -verify -binary` of a detached CMS over its content, trusting `certificatePem`; resolves when it verifies. */
export async function opensslVerify(signature: EmbeddedSignature, certificatePem: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-verify-'));
  try {
    const [cms, content, ca] = ['sig.der', 'content.bin', 'ca.pem'].map((file) => join(dir, file)) as [string, string, string];
    await writeFile(cms, signature.cms);
    await writeFile(content, signature.signed);
    await writeFile(ca, certificatePem);
    const { stderr } = await run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', cms, '-content', content, '-CAfile', ca, '-purpose', 'any', '-out', '/dev/null']);
    return stderr;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
