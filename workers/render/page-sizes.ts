// Page sizes in PDF points (1/72 inch). ISO 216 A and B series and ISO 269 C
// series: each size halves the longer side of the previous one, rounding
// down to whole millimetres, which reproduces the published tables
// (A4 210x297, B5 176x250, C6 114x162, ...). US Letter and Legal are exact.
const MM = 72 / 25.4;

function series(first: readonly [number, number]): Array<readonly [number, number]> {
  const sizes: Array<readonly [number, number]> = [first];
  for (let n = 1; n <= 10; n++) {
    const [w, h] = sizes[n - 1] as readonly [number, number];
    sizes.push([Math.floor(h / 2), w]);
  }
  return sizes;
}

const table = new Map<string, readonly [number, number]>();
for (const [letter, first] of [
  ['A', [841, 1189]],
  ['B', [1000, 1414]],
  ['C', [917, 1297]],
] as const) {
  series(first).forEach(([w, h], n) => table.set(`${letter}${n}`, [w * MM, h * MM]));
}
table.set('LETTER', [612, 792]);
table.set('LEGAL', [612, 1008]);

/** Every accepted name, in canonical spelling, for messages and the contract. */
export const PAGE_SIZE_NAMES: readonly string[] = [...table.keys()].map((name) =>
  name === 'LETTER' ? 'Letter' : name === 'LEGAL' ? 'Legal' : name,
);

export type Orientation = 'portrait' | 'landscape';

/** Width and height in points for a (case-insensitive) size name, or undefined. */
export function pageSize(name: string, orientation: Orientation): [number, number] | undefined {
  const size = table.get(name.trim().toUpperCase());
  if (size === undefined) return undefined;
  const [short, long] = size;
  return orientation === 'landscape' ? [long, short] : [short, long];
}

/** The canonical spelling of a size name (a4 → A4, LETTER → Letter), or the input when unknown. */
export function canonicalPageSize(name: string): string {
  const key = name.trim().toUpperCase();
  if (!table.has(key)) return name;
  return key === 'LETTER' ? 'Letter' : key === 'LEGAL' ? 'Legal' : key;
}
