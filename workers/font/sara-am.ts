// Thai and Lao SARA AM, prepared as HarfBuzz's Thai shaper prepares it
// (hb-ot-shaper-thai.cc, preprocess_text), since fontkit has no Thai shaper.
// SARA AM (U+0E33; Lao U+0EB3) is NIKHAHIT above the consonant plus SARA AA
// after it. The fonts' own `ccmp` decomposes it, but leaves NIKHAHIT after
// any tone mark typed before the SARA AM, so the tone mark is not raised
// over it: "น้ำ" (NO NU, MAI THO, SARA AM) came out as glyphs 61,45,57,76 in
// Noto Sans Thai, HarfBuzz's 61,57,47,76 (test/shaping.test.ts). Written
// decomposed, with NIKHAHIT moved back before the above-base marks, fontkit
// picks HarfBuzz's glyphs and positions.

const SARA_AM = /[\u0E33\u0EB3]/;

/** HarfBuzz's IS_ABOVE_BASE_MARK, for Thai and (at +0x80) Lao. */
function isAboveBaseMark(code: number): boolean {
  const thai = code & ~0x80;
  return (thai >= 0x0e34 && thai <= 0x0e37) || (thai >= 0x0e47 && thai <= 0x0e4e) || thai === 0x0e31 || thai === 0x0e3b;
}

/** Whether `text` has a SARA AM to prepare: a cheap test before prepareSaraAm. */
export function hasSaraAm(text: string): boolean {
  return SARA_AM.test(text);
}

/**
 * `text` with every SARA AM written as NIKHAHIT + SARA AA, NIKHAHIT placed
 * before the above-base marks that precede it (all in the BMP, one UTF-16
 * unit each). `covers` says whether the font has a character: a font
 * without NIKHAHIT or SARA AA keeps its SARA AM as sent.
 */
export function prepareSaraAm(text: string, covers: (codePoint: number) => boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x0e33 && code !== 0x0eb3) {
      out += text[i];
      continue;
    }
    const nikhahit = code - 0x0e33 + 0x0e4d;
    const saraAa = code - 1;
    if (!covers(nikhahit) || !covers(saraAa)) {
      out += text[i];
      continue;
    }
    let marks = out.length;
    while (marks > 0 && isAboveBaseMark(out.charCodeAt(marks - 1))) marks--;
    out = out.slice(0, marks) + String.fromCharCode(nikhahit) + out.slice(marks) + String.fromCharCode(saraAa);
  }
  return out;
}
