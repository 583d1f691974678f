// Real font tools (Debian's libharfbuzz-bin, fontconfig and fonttools,
// installed by test/tools.sh) and fontkit check what the subsetter produces,
// and make the WOFF/WOFF2 inputs with an encoder that is not ours.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as fontkit from 'fontkit';

const run = promisify(execFile);

export const DEJAVU_SANS = new URL('../../../node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf', import.meta.url);
/** Debian's fonts-noto-cjk: a collection of ten OpenType/CFF faces (JP, KR, SC, TC, HK in Sans and Sans Mono). */
export const NOTO_CJK_TTC = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc';

/** Runs `use` with the font in a temporary file, removed afterwards. */
export async function withFontFile<T>(font: Uint8Array, use: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-font-'));
  try {
    const path = join(dir, 'font.bin');
    await writeFile(path, font);
    return await use(path, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Table tags of the font (`ttx -l`). */
export function tableTags(font: Uint8Array): Promise<Set<string>> {
  return withFontFile(font, async (path) => {
    const { stdout } = await run('ttx', ['-q', '-l', path]);
    // Lines: "    tag    checksum    length    offset"; tags may hold a space ('cvt ', 'CFF ').
    const tags = [...stdout.matchAll(/^ {4}(.{4}) +0x[0-9A-F]{8}/gm)].map((m) => (m[1] as string).trim());
    return new Set(tags);
  });
}

/** The CFF table as ttx XML (charstrings decompiled to operators). */
export function cffXml(font: Uint8Array): Promise<string> {
  return withFontFile(font, async (path) => (await run('ttx', ['-q', '-t', 'CFF ', '-o', '-', path], { maxBuffer: 64 * 1024 * 1024 })).stdout);
}

export interface Scan {
  readonly family: string;
  readonly codepoints: Set<number>;
}

/** fontconfig's view of the font (`fc-scan`): family and the characters it covers. */
export function fcScan(font: Uint8Array): Promise<Scan> {
  return withFontFile(font, async (path) => {
    const { stdout } = await run('fc-scan', ['--format', '%{family}\\n%{charset}\\n', path]);
    const [family = '', charset = ''] = stdout.split('\n');
    const codepoints = new Set<number>();
    for (const range of charset.split(' ').filter((r) => r !== '')) {
      const [from, to = from] = range.split('-').map((hex) => parseInt(hex, 16)) as [number, number?];
      for (let cp = from; cp <= to; cp++) codepoints.add(cp);
    }
    return { family, codepoints };
  });
}

/** Subsets with Debian's hb-subset CLI (another HarfBuzz build): proves it reads the font, and gives a reference. */
export function hbSubsetCli(font: Uint8Array, codepoints: readonly number[], args: readonly string[] = []): Promise<Uint8Array> {
  return withFontFile(font, async (path, dir) => {
    const out = join(dir, 'out.bin');
    const unicodes = codepoints.map((cp) => cp.toString(16)).join(',');
    await run('hb-subset', [path, `--unicodes=${unicodes}`, `--output-file=${out}`, ...args]);
    return new Uint8Array(await readFile(out));
  });
}

/** A WOFF or WOFF2 made by fontTools' subsetter from `font`, keeping `text`'s characters. */
export function fontToolsWebFont(font: Uint8Array, flavor: 'woff' | 'woff2', text: string, faceIndex = 0): Promise<Uint8Array> {
  return withFontFile(font, async (path, dir) => {
    const out = join(dir, `out.${flavor}`);
    await run('fonttools', ['subset', path, `--text=${text}`, `--font-number=${faceIndex}`, `--flavor=${flavor}`, `--output-file=${out}`]);
    return new Uint8Array(await readFile(out));
  });
}

/** Parses with fontkit (a single font, not a collection). */
export function parseFont(font: Uint8Array): fontkit.Font {
  const parsed = fontkit.create(Buffer.from(font.buffer, font.byteOffset, font.byteLength));
  if (!('numGlyphs' in parsed)) throw new Error('fontkit read a collection, not a font');
  return parsed as fontkit.Font;
}

/** Code points fontkit finds mapped to a real glyph (its characterSet also lists a format 4 cmap's closing 0xFFFF segment, mapped to .notdef). */
export function mappedCodepoints(font: fontkit.Font): Set<number> {
  return new Set(font.characterSet.filter((cp) => font.glyphForCodePoint(cp).id > 0));
}
