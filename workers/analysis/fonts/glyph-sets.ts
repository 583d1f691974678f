// Whether a font descriptor's CharSet (names) or CIDSet (a bit per CID)
// lists the glyphs of the embedded program as veraPDF's rules ask (a
// subset's CharSet/CIDSet in pdfa/rules-glyphs.ts, PDF/UA 7.21.4.2 in
// ua/rules-fonts.ts), from what font-glyphs.ts read.
import type { FontGlyphs } from './glyph-facts.js';

/** The CharSet string's names: "/a/b/c" → a, b, c (.notdef aside). */
function charSetNames(text: string): Set<string> {
  return new Set(text.split('/').map((name) => name.trim()).filter((name) => name !== '' && name !== '.notdef'));
}

/** veraPDF's charSetListsAllGlyphs: the CharSet names exactly the program's glyphs (.notdef aside); undefined when either is unread. */
export function charSetListsAll(glyphs: FontGlyphs, charSet: string | undefined): boolean | undefined {
  if (glyphs.glyphNames === undefined || charSet === undefined) return undefined;
  const listed = charSetNames(charSet);
  const present = new Set(glyphs.glyphNames.filter((name) => name !== '.notdef'));
  return present.size === listed.size && [...present].every((name) => listed.has(name));
}

/**
 * veraPDF's cidSetListsAllGlyphs: with `shownCodes` (PDF/A-1), every CID
 * the content shows that the program has is in the CIDSet; without (PDF/A-2
 * and 3, PDF/UA), every CID of the program (0 aside) is in it and every CID
 * it lists is in the program. Undefined when either is unread.
 */
export function cidSetListsAll(glyphs: FontGlyphs, bits: Uint8Array | undefined, shownCodes?: Iterable<number>): boolean | undefined {
  const cids = glyphs.cids;
  if (cids === undefined || bits === undefined) return undefined;
  const listed = (cid: number) => ((bits[cid >> 3] ?? 0) & (0x80 >> (cid & 7))) !== 0;
  const inProgram = new Set(cids);
  if (shownCodes !== undefined) return [...shownCodes].map((code) => glyphs.cidOf?.(code)).every((cid) => cid === undefined || cid === 0 || !inProgram.has(cid) || listed(cid));
  if (!cids.every((cid) => cid === 0 || listed(cid))) return false;
  for (let cid = 1; cid < bits.length * 8; cid++) if (listed(cid) && !inProgram.has(cid)) return false;
  return true;
}
