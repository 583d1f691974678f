// What a signature's CMS SignedData (RFC 5652) says, and whether it still
// holds: the digest of the bytes its /ByteRange covers against the signed
// message-digest attribute (5.4), and the signature value against the
// signer certificate's public key over the signed attributes DER-encoded as
// a SET (5.4). No trust path is built: whether the signer is someone to
// trust is the relying party's question; whether the bytes changed is ours.
import { createHash, verify, X509Certificate, constants, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const ID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const ID_SIGNING_TIME = '1.2.840.113549.1.9.5';
const ID_RSASSA_PSS = '1.2.840.113549.1.1.10';
const ID_ED25519 = '1.3.101.112';

const HASHES: Readonly<Record<string, string>> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Short names of the subject attributes (RFC 4514 3, plus emailAddress). */
const NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.5': 'serialNumber',
  '1.2.840.113549.1.9.1': 'E',
};

export interface CmsCheck {
  /** The signer certificate's subject, RFC 4514 style ("CN=..., O=..."); null when no certificate is in the CMS. */
  readonly signer: string | null;
  /** The signing-time signed attribute, ISO 8601, when present. */
  readonly signingTime: string | null;
  readonly digestAlgorithm: string | null;
  /** The covered bytes' digest equals the signed message digest. null: the CMS could not be read. */
  readonly digestMatches: boolean | null;
  /** The signature value verifies with the signer certificate's key. null: not checkable (no certificate, an algorithm we do not verify). */
  readonly signatureValid: boolean | null;
  /** Why a check could not be made, for the finding's detail. */
  readonly problem: string | null;
}

/** `covered` is the bytes the /ByteRange names, in order; `der` the /Contents (trailing zero padding allowed). */
export function checkCms(der: Uint8Array, covered: readonly Uint8Array[], subFilter: string | undefined): CmsCheck {
  const failed = (problem: string): CmsCheck => ({ signer: null, signingTime: null, digestAlgorithm: null, digestMatches: null, signatureValid: null, problem });
  let signedData: pkijs.SignedData;
  try {
    const asn1 = asn1js.fromBER(Uint8Array.from(der));
    if (asn1.offset === -1) return failed('the signature /Contents is not DER');
    const info = new pkijs.ContentInfo({ schema: asn1.result });
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    return failed(`the signature /Contents is not a CMS SignedData (${(error as Error).message.slice(0, 120)})`);
  }
  const signerInfo = signedData.signerInfos[0];
  if (signerInfo === undefined) return failed('the CMS has no signer');
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId] ?? null;
  const certificate = signerCertificate(signedData, signerInfo);
  const signer = certificate === undefined ? null : subjectOf(certificate);
  const attributes = signerInfo.signedAttrs?.attributes ?? [];
  const timeValue = attributes.find((attribute) => attribute.type === ID_SIGNING_TIME)?.values[0] as { toDate?: () => Date } | undefined;
  const signingTime = typeof timeValue?.toDate === 'function' ? safeIso(timeValue.toDate()) : null;
  if (hash === null) return { signer, signingTime, digestAlgorithm: signerInfo.digestAlgorithm.algorithmId, digestMatches: null, signatureValid: null, problem: 'a digest algorithm this service does not compute' };

  const rangeDigest = digest(hash, covered);
  // adbe.pkcs7.sha1 signs a SHA-1 of the covered bytes carried as the encapsulated content (ISO 32000-1 12.8.3.3.1).
  const encapsulated = signedData.encapContentInfo.eContent?.valueBlock.valueHexView;
  const content = subFilter === 'adbe.pkcs7.sha1' && encapsulated !== undefined ? new Uint8Array(encapsulated) : undefined;
  const contentDigestOk = content === undefined ? true : Buffer.compare(Buffer.from(content), digest('sha1', covered)) === 0;
  const messageDigest = (attributes.find((attribute) => attribute.type === ID_MESSAGE_DIGEST)?.values[0] as asn1js.OctetString | undefined)?.valueBlock.valueHexView;
  const expected = content === undefined ? rangeDigest : digest(hash, [content]);
  let digestMatches: boolean;
  let signedBytes: Uint8Array;
  if (signerInfo.signedAttrs === undefined) {
    // No signed attributes: the signature is over the content itself (RFC 5652 5.4).
    digestMatches = contentDigestOk;
    signedBytes = content ?? Buffer.concat(covered.map((part) => Buffer.from(part.buffer, part.byteOffset, part.byteLength)));
  } else {
    digestMatches = contentDigestOk && messageDigest !== undefined && Buffer.compare(Buffer.from(messageDigest), expected) === 0;
    signedBytes = new Uint8Array(signerInfo.signedAttrs.encodedValue);
  }
  const signatureValid = certificate === undefined ? null : verifyValue(hash, signedBytes, certificate, signerInfo);
  return { signer, signingTime, digestAlgorithm: hash, digestMatches, signatureValid, problem: certificate === undefined ? 'the CMS carries no signer certificate' : null };
}

function digest(hash: string, parts: readonly Uint8Array[]): Buffer {
  const hasher = createHash(hash);
  for (const part of parts) hasher.update(part);
  return hasher.digest();
}

function signerCertificate(signedData: pkijs.SignedData, signerInfo: pkijs.SignerInfo): pkijs.Certificate | undefined {
  const certificates = (signedData.certificates ?? []).filter((item): item is pkijs.Certificate => item instanceof pkijs.Certificate);
  const sid = signerInfo.sid as unknown;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    const match = certificates.find((certificate) => certificate.serialNumber.isEqual(sid.serialNumber) && certificate.issuer.isEqual(sid.issuer));
    if (match !== undefined) return match;
  }
  return certificates.length === 1 ? certificates[0] : undefined;
}

function subjectOf(certificate: pkijs.Certificate): string {
  return certificate.subject.typesAndValues
    .map((pair) => `${NAMES[pair.type] ?? pair.type}=${String((pair.value.valueBlock as { value?: unknown }).value ?? '')}`)
    .join(', ');
}

function verifyValue(hash: string, data: Uint8Array, certificate: pkijs.Certificate, signerInfo: pkijs.SignerInfo): boolean | null {
  let key: KeyObject;
  try {
    key = new X509Certificate(Buffer.from(certificate.toSchema().toBER())).publicKey;
  } catch {
    return null;
  }
  const signature = new Uint8Array(signerInfo.signature.valueBlock.valueHexView);
  const algorithm = signerInfo.signatureAlgorithm.algorithmId;
  try {
    if (algorithm === ID_ED25519) return verify(null, data, key, signature);
    if (algorithm === ID_RSASSA_PSS) return verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    // rsaEncryption / sha*WithRSAEncryption (PKCS#1 v1.5) and ecdsa-with-SHA* (a DER signature, node's default encoding).
    return verify(hash, data, key, signature);
  } catch {
    return false;
  }
}

function safeIso(date: Date): string | null {
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
