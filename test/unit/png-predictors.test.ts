// The one PNG predictor decoder (workers/untrusted/png-predictors.ts),
// against a PNG row filter written here from RFC 2083 section 6: rows
// filtered with each of the five types must come back as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { undoPngPredictors } from '../../workers/untrusted/png-predictors.js';

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** PNG filtering (the encoder's side): row r uses filter type types[r % types.length]. */
function filter(pixels: Uint8Array, rowBytes: number, pixelBytes: number, types: readonly number[]): Uint8Array {
  const rows = pixels.length / rowBytes;
  const out = new Uint8Array(rows * (rowBytes + 1));
  for (let row = 0; row < rows; row++) {
    const type = types[row % types.length] as number;
    out[row * (rowBytes + 1)] = type;
    for (let i = 0; i < rowBytes; i++) {
      const x = pixels[row * rowBytes + i] as number;
      const a = i >= pixelBytes ? (pixels[row * rowBytes + i - pixelBytes] as number) : 0;
      const b = row > 0 ? (pixels[(row - 1) * rowBytes + i] as number) : 0;
      const c = row > 0 && i >= pixelBytes ? (pixels[(row - 1) * rowBytes + i - pixelBytes] as number) : 0;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][type] as number;
      out[row * (rowBytes + 1) + 1 + i] = (x - predicted) & 0xff;
    }
  }
  return out;
}

test('undoes each of the five filter types, for 1- and 3-byte pixels', () => {
  for (const pixelBytes of [1, 3]) {
    const rowBytes = 37 * pixelBytes;
    const pixels = Uint8Array.from({ length: rowBytes * 23 }, (_, i) => (i * 7919 + (i % rowBytes) * 31 + (i >> 5)) & 0xff);
    const filtered = filter(pixels, rowBytes, pixelBytes, [0, 1, 2, 3, 4]);
    assert.deepEqual(undoPngPredictors(filtered, rowBytes, pixelBytes, 23), pixels);
    assert.deepEqual(undoPngPredictors(filtered, rowBytes, pixelBytes), pixels, 'rows counted from the data');
  }
});

test('data too short for its rows, or an unknown filter type, is undefined', () => {
  assert.equal(undoPngPredictors(Uint8Array.of(0, 1, 2), 2, 1, 2), undefined);
  assert.equal(undoPngPredictors(Uint8Array.of(5, 1, 2), 2, 1, 1), undefined);
  // Sub then Up by hand: [1, 2+1] then [3+1, 4+3].
  assert.deepEqual([...(undoPngPredictors(Uint8Array.of(1, 1, 2, 2, 3, 4), 2, 1) as Uint8Array)], [1, 3, 4, 7]);
});
