// The CMS SignedData of a PAdES baseline B-B signature (ETSI EN 319 142-1
// section 6.3, over EN 319 122-1): detached, SHA-256, and exactly three
// signed attributes: content-type, message-digest and ESS
// signing-certificate-v2 (RFC 5035) holding the signer certificate's
// SHA-256. No signing-time: PAdES puts the time in the signature
// dictionary's /M (EN 319 142-1 section 5.4.3). @signpdf's P12 signer gets
// this wrong (signing-time, no signing-certificate-v2; libraries.md), hence
// PKI.js. The signature value comes from node:crypto (RSA PKCS#1 v1.5, or
// ECDSA as DER, which is what CMS wants).
import { createHash, sign } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { SigningIdentity } from './identity.js';

const ID_DATA = '1.2.840.113549.1.7.1';
const ID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const ID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const ID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const ID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const ID_SHA256 = '2.16.840.1.101.3.4.2.1';
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

/** A detached CMS SignedData (DER) over `content`, the bytes the ByteRange covers. */
export function padesSignedData(content: readonly Uint8Array[], identity: SigningIdentity): Uint8Array {
  const digest = createHash('sha256');
  for (const part of content) digest.update(part);
  const messageDigest = digest.digest();
  const certificateHash = createHash('sha256').update(identity.certificateDer).digest();

  const signedAttributes = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: [
      new pkijs.Attribute({ type: ID_CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: ID_DATA })] }),
      new pkijs.Attribute({ type: ID_MESSAGE_DIGEST, values: [new asn1js.OctetString({ valueHex: bufferOf(messageDigest) })] }),
      new pkijs.Attribute({ type: ID_SIGNING_CERTIFICATE_V2, values: [signingCertificateV2(certificateHash, identity.certificate)] }),
    ],
  });
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: identity.certificate.issuer, serialNumber: identity.certificate.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: ID_SHA256 }),
    signedAttrs: signedAttributes,
    signatureAlgorithm: identity.key.asymmetricKeyType === 'ec'
      ? new pkijs.AlgorithmIdentifier({ algorithmId: ECDSA_WITH_SHA256 })
      : new pkijs.AlgorithmIdentifier({ algorithmId: RSA_ENCRYPTION, algorithmParams: new asn1js.Null() }),
  });
  // The signature covers the attributes DER-encoded as a SET (RFC 5652
  // section 5.4), not as the [0] IMPLICIT field they are stored in.
  const attributesDer = new asn1js.Set({ value: signedAttributes.attributes.map((attribute) => attribute.toSchema()) }).toBER();
  signerInfo.signature = new asn1js.OctetString({ valueHex: bufferOf(sign('sha256', new Uint8Array(attributesDer), identity.key)) });

  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: ID_SHA256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: ID_DATA }),
    certificates: [...identity.chain],
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: ID_SIGNED_DATA, content: signedData.toSchema(true) });
  return new Uint8Array(contentInfo.toSchema().toBER());
}

/**
 * SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }, one
 * ESSCertIDv2 { certHash, issuerSerial } (RFC 5035 section 4); hashAlgorithm
 * is SHA-256, the DEFAULT, so DER leaves it out.
 */
function signingCertificateV2(certificateHash: Uint8Array, certificate: pkijs.Certificate): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames: one directoryName [4], explicit because Name is a CHOICE.
      new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [certificate.issuer.toSchema()] })] }),
      certificate.serialNumber,
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: bufferOf(certificateHash) }), issuerSerial] });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

function bufferOf(bytes: Uint8Array): ArrayBuffer {
  return Uint8Array.from(bytes).buffer;
}
