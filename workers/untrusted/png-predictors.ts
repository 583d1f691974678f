// PNG row predictors undone (RFC 2083 section 6; ISO 32000-1 section
// 7.4.4.4, /Predictor 10-15 on Flate and LZW data): each row is a
// filter-type byte and `rowBytes` bytes predicted from the byte
// `pixelBytes` to the left, the one above, or both. One decoder for the
// image resampler, the redactor's pixel writer and the cross-reference
// stream reader, which each had their own.

/**
 * The rows with their predictors undone: `rows` of them, or as many whole
 * rows as the data holds when `rows` is undefined. Undefined when the data
 * is shorter than `rows` rows or a row names a filter type PNG does not have.
 */
export function undoPngPredictors(data: Uint8Array, rowBytes: number, pixelBytes: number, rows?: number): Uint8Array | undefined {
  const stride = rowBytes + 1;
  const count = rows ?? Math.floor(data.length / stride);
  if (data.length < stride * count) return undefined;
  const out = new Uint8Array(rowBytes * count);
  for (let row = 0; row < count; row++) {
    const type = data[row * stride] as number;
    const source = row * stride + 1;
    const at = row * rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= pixelBytes ? (out[at + i - pixelBytes] as number) : 0;
      const up = row > 0 ? (out[at - rowBytes + i] as number) : 0;
      let predicted: number;
      switch (type) {
        case 0: predicted = 0; break;
        case 1: predicted = left; break;
        case 2: predicted = up; break;
        case 3: predicted = (left + up) >> 1; break;
        case 4: predicted = paeth(left, up, row > 0 && i >= pixelBytes ? (out[at - rowBytes + i - pixelBytes] as number) : 0); break;
        default: return undefined;
      }
      out[at + i] = ((data[source + i] as number) + predicted) & 0xff;
    }
  }
  return out;
}

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const pa = Math.abs(p - left);
  const pb = Math.abs(p - up);
  const pc = Math.abs(p - upLeft);
  return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
}
