// A glyph's advance width from its Type 2 charstring (Adobe TN 5177): only
// as far as the first stack-clearing operator, through subroutine calls,
// with a bounded number of steps and call depth (untrusted bytes).
import type { Index } from './cff-tables.js';

function bias(count: number): number {
  return count < 1240 ? 107 : count < 33900 ? 1131 : 32768;
}

/** Charstring operators that end the width's chance to appear and what a hint or move operator takes without it. */
const STEM_OPERATORS = new Set([1, 3, 18, 23]);

/**
 * The width operand of a Type 2 charstring, or undefined when the glyph
 * carries none (the default applies): the first stack-clearing operator
 * takes one more operand than it needs (TN 5177 section 3.1).
 */
export function charstringWidth(bytes: Uint8Array, start: number, end: number, local: Index | undefined, global: Index): number | null | undefined {
  const stack: number[] = [];
  let steps = 0;
  const run = (from: number, to: number, depth: number): number | null | undefined | 'continue' => {
    let at = from;
    while (at < to) {
      if (++steps > 10_000) return undefined;
      const b0 = bytes[at++]!;
      if (b0 >= 32 || b0 === 28) {
        if (b0 === 28) {
          stack.push(((bytes[at]! << 24) >> 16) | bytes[at + 1]!);
          at += 2;
        } else if (b0 <= 246) stack.push(b0 - 139);
        else if (b0 <= 250) stack.push((b0 - 247) * 256 + bytes[at++]! + 108);
        else if (b0 <= 254) stack.push(-(b0 - 251) * 256 - bytes[at++]! - 108);
        else {
          stack.push(((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) / 65536);
          at += 4;
        }
        continue;
      }
      if (b0 === 10 || b0 === 29) {
        const index = b0 === 10 ? local : global;
        const number = stack.pop();
        if (index === undefined || number === undefined || depth > 10) return undefined;
        const i = number + bias(index.count);
        if (i < 0 || i >= index.count) return undefined;
        const [s, e] = index.item(i);
        const result = run(s, e, depth + 1);
        if (result !== 'continue') return result;
        continue;
      }
      if (b0 === 11) return 'continue';
      // The first operator other than a subroutine call decides.
      const odd = stack.length % 2 === 1;
      if (STEM_OPERATORS.has(b0) || b0 === 19 || b0 === 20) return odd ? stack[0]! : null;
      if (b0 === 21) return stack.length > 2 ? stack[0]! : null;
      if (b0 === 4 || b0 === 22) return stack.length > 1 ? stack[0]! : null;
      if (b0 === 14) return stack.length === 1 || stack.length === 5 ? stack[0]! : null;
      return null;
    }
    return 'continue';
  };
  const result = run(start, end, 0);
  return result === 'continue' ? null : result;
}
