// The header of an ICC profile (ICC.1:2004-10 §7.2): what PDF/A asks of an
// output intent's and an ICCBased colour space's profile is in its first 128
// bytes: the version (byte 8 major, byte 9 minor in BCD), the device class
// (bytes 12-15: 'mntr', 'prtr', 'scnr', 'spac', ...) and the data colour
// space (bytes 16-19: 'RGB ', 'CMYK', 'GRAY', 'Lab ').

export interface IccHeader {
  /** 2.1 for 0x02 0x10. */
  readonly version: number;
  readonly deviceClass: string;
  readonly colourSpace: string;
}

export function readIccHeader(bytes: Uint8Array): IccHeader | undefined {
  if (bytes.length < 128) return undefined;
  // 'acsp' at bytes 36-39 marks an ICC profile.
  if (ascii(bytes, 36, 40) !== 'acsp') return undefined;
  const version = bytes[8]! + (bytes[9]! >> 4) / 10 + (bytes[9]! & 0x0f) / 100;
  return { version, deviceClass: ascii(bytes, 12, 16), colourSpace: ascii(bytes, 16, 20) };
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}
