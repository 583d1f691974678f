// The pieces of a rewritten text operator, written as content-stream
// syntax: a TJ array of the kept glyphs' code bytes (hex strings) and the
// removed glyphs' advances (numbers), and names and numbers as tokens.

/** A TJ array: runs of kept glyphs' code bytes as hex strings, adjustments merged. */
export class TjBuilder {
  private readonly items: string[] = [];
  private run: number[] = [];
  private adjustment: number | null = null;

  bytes(bytes: Uint8Array): void {
    this.flushNumber();
    for (const byte of bytes) this.run.push(byte);
  }

  number(value: number): void {
    this.flushRun();
    this.adjustment = (this.adjustment ?? 0) + value;
  }

  toString(): string {
    this.flushRun();
    this.flushNumber();
    return `[${this.items.join(' ')}]`;
  }

  private flushRun(): void {
    if (this.run.length === 0) return;
    this.items.push(`<${Buffer.from(this.run).toString('hex')}>`);
    this.run = [];
  }

  private flushNumber(): void {
    if (this.adjustment === null) return;
    this.items.push(formatNumber(this.adjustment));
    this.adjustment = null;
  }
}

export function formatNumber(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** A name's bytes as a content-stream name token (section 7.3.5): anything but regular printable ASCII as #xx. */
export function escapeName(name: string): string {
  return name.replace(/[^!-~]|[#()<>[\]{}/%]/g, (char) => `#${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
