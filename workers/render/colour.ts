// Hex colours (#333, #1f2937) as the 0..1 RGB triples PDF operators take.
import type { Rgb } from './canvas.js';

/** `hex` is already checked to be `#` and 3 or 6 hex digits (fields.ts, the CSS parser). */
export function parseColor(hex: string): Rgb {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((d) => d + d).join('') : hex.slice(1);
  const value = Number.parseInt(digits, 16);
  return { r: ((value >> 16) & 255) / 255, g: ((value >> 8) & 255) / 255, b: (value & 255) / 255 };
}
