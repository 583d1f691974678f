// The containers of a CFF font program (Adobe TN 5176): INDEX (section 5),
// DICT (section 4) and the Private DICT's entries that glyph widths need.
// Untrusted bytes: every offset is checked, and a read past the end throws
// CffError.

export class CffError extends Error {}

export interface Index {
  readonly count: number;
  /** Byte range of each item. */
  item(i: number): [number, number];
  readonly end: number;
}

export function readIndex(bytes: Uint8Array, at: number): Index {
  const need = (n: number) => {
    if (at + n > bytes.length) throw new CffError('INDEX past the end');
  };
  need(2);
  const count = (bytes[at]! << 8) | bytes[at + 1]!;
  if (count === 0) return { count, item: () => [0, 0], end: at + 2 };
  need(3);
  const offSize = bytes[at + 2]!;
  if (offSize < 1 || offSize > 4) throw new CffError('bad INDEX offSize');
  need(3 + (count + 1) * offSize);
  const offset = (i: number): number => {
    let value = 0;
    for (let k = 0; k < offSize; k++) value = value * 256 + bytes[at + 3 + i * offSize + k]!;
    return value;
  };
  const base = at + 2 + (count + 1) * offSize;
  const last = base + offset(count);
  if (last > bytes.length) throw new CffError('INDEX data past the end');
  return {
    count,
    end: last,
    item(i) {
      const start = base + offset(i);
      const end = base + offset(i + 1);
      if (start > end || end > last) throw new CffError('bad INDEX offsets');
      return [start, end];
    },
  };
}

/** A DICT (TN 5176 section 4) as operator → operands; two-byte operators are 1200 + the second byte. */
export function readDict(bytes: Uint8Array, start: number, end: number): Map<number, number[]> {
  const dict = new Map<number, number[]>();
  let operands: number[] = [];
  let at = start;
  while (at < end) {
    const b0 = bytes[at++]!;
    if (b0 <= 21) {
      const op = b0 === 12 ? 1200 + (bytes[at++] ?? 0) : b0;
      dict.set(op, operands);
      operands = [];
    } else if (b0 === 28) {
      operands.push(((bytes[at]! << 24) >> 16) | bytes[at + 1]!);
      at += 2;
    } else if (b0 === 29) {
      operands.push((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
      at += 4;
    } else if (b0 === 30) {
      let text = '';
      for (let done = false; !done && at < end; ) {
        const byte = bytes[at++]!;
        for (const nibble of [byte >> 4, byte & 15]) {
          if (nibble === 15) {
            done = true;
            break;
          }
          text += ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', 'E', 'E-', '', '-'][nibble] ?? '';
        }
      }
      operands.push(Number.parseFloat(text) || 0);
    } else if (b0 >= 32 && b0 <= 246) operands.push(b0 - 139);
    else if (b0 >= 247 && b0 <= 250) operands.push((b0 - 247) * 256 + bytes[at++]! + 108);
    else if (b0 >= 251 && b0 <= 254) operands.push(-(b0 - 251) * 256 - bytes[at++]! - 108);
    else throw new CffError(`bad DICT byte ${b0}`);
    if (at > end) throw new CffError('DICT past its end');
  }
  return dict;
}

export interface PrivateDict {
  readonly defaultWidth: number;
  readonly nominalWidth: number;
  readonly subrs: Index | undefined;
}

export function readPrivate(bytes: Uint8Array, entry: number[] | undefined): PrivateDict {
  if (entry === undefined || entry.length < 2) return { defaultWidth: 0, nominalWidth: 0, subrs: undefined };
  const [size, offset] = entry as [number, number];
  if (offset < 0 || size < 0 || offset + size > bytes.length) throw new CffError('Private DICT past the end');
  const dict = readDict(bytes, offset, offset + size);
  const subrsAt = dict.get(19)?.[0];
  return {
    defaultWidth: dict.get(20)?.[0] ?? 0,
    nominalWidth: dict.get(21)?.[0] ?? 0,
    subrs: subrsAt === undefined ? undefined : readIndex(bytes, offset + subrsAt),
  };
}
