// Real PDF tools (Debian's qpdf and poppler-utils, installed by test/tools.sh)
// verify what the server produces.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `use` on a temporary file holding the PDF, removed afterwards. */
export async function withFile<T>(pdf: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-test-'));
  try {
    const path = join(dir, 'out.pdf');
    await writeFile(path, pdf);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `qpdf --check`; rejects (with qpdf's output) when the file is damaged. */
export function qpdfCheck(pdf: Uint8Array): Promise<string> {
  return withFile(pdf, async (path) => (await run('qpdf', ['--check', path])).stdout);
}

export function pdfToText(pdf: Uint8Array, layout = false): Promise<string> {
  return withFile(pdf, async (path) => (await run('pdftotext', [...(layout ? ['-layout'] : []), path, '-'])).stdout);
}

export async function pdfInfo(pdf: Uint8Array): Promise<Record<string, string>> {
  const out = await withFile(pdf, async (path) => (await run('pdfinfo', [path])).stdout);
  const info: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) info[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return info;
}

export interface PdfFont {
  readonly name: string;
  readonly type: string;
  readonly embedded: boolean;
  readonly subset: boolean;
  /** Has a ToUnicode map (pdffonts' `uni`). */
  readonly unicode: boolean;
}

/** `pdffonts`: every font the PDF uses, whether embedded and subset. */
export async function pdfFonts(pdf: Uint8Array): Promise<PdfFont[]> {
  const out = await withFile(pdf, async (path) => (await run('pdffonts', [path])).stdout);
  // Columns: name, type (may hold spaces), encoding, emb, sub, uni, object ID.
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const match = /^(\S+)\s+(.+?)\s+(\S+)\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.exec(line);
      if (match === null) throw new Error(`unexpected pdffonts line: ${line}`);
      return { name: match[1] as string, type: match[2] as string, embedded: match[4] === 'yes', subset: match[5] === 'yes', unicode: match[6] === 'yes' };
    });
}

export interface WordBox {
  readonly page: number;
  readonly word: string;
  readonly xMin: number;
  readonly yMin: number;
  readonly xMax: number;
  readonly yMax: number;
}

/** Every word with its box in points from the page's top-left (`pdftotext -bbox`), in reading order. */
export async function wordBoxes(pdf: Uint8Array): Promise<WordBox[]> {
  const html = await withFile(pdf, async (path) => (await run('pdftotext', ['-bbox', path, '-'], { maxBuffer: 64 * 1024 * 1024 })).stdout);
  const words: WordBox[] = [];
  let page = 0;
  for (const match of html.matchAll(/<page |<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
    if (match[0] === '<page ') {
      page += 1;
      continue;
    }
    const decoded = (match[5] as string).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    words.push({ page, word: decoded, xMin: Number(match[1]), yMin: Number(match[2]), xMax: Number(match[3]), yMax: Number(match[4]) });
  }
  return words;
}

/** Runs qpdf with `args` on the PDF as input and returns what it wrote (e.g. `--encrypt ...`, `--rotate=+90`). */
export function qpdfTransform(pdf: Uint8Array, args: readonly string[]): Promise<Uint8Array> {
  return withFile(pdf, async (path) => {
    const out = `${path}.out.pdf`;
    await run('qpdf', [...args, path, out]);
    return new Uint8Array(await readFile(out));
  });
}

export interface PdfImage {
  readonly page: number;
  readonly type: string;
  readonly width: number;
  readonly height: number;
  readonly color: string;
  readonly encoding: string;
  readonly object: number;
  readonly ppi: number;
}

/** `pdfimages -list`: every image painted, with its pixel size and its resolution where it is placed. */
export async function pdfImages(pdf: Uint8Array, password?: string): Promise<PdfImage[]> {
  const out = await withFile(pdf, async (path) => (await run('pdfimages', [...(password === undefined ? [] : ['-upw', password]), '-list', path])).stdout);
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const cells = line.trim().split(/\s+/);
      return {
        page: Number(cells[0]),
        type: cells[2] as string,
        width: Number(cells[3]),
        height: Number(cells[4]),
        color: cells[5] as string,
        encoding: cells[8] as string,
        object: Number(cells[10]),
        ppi: Number(cells[12]),
      };
    });
}

/** One line of `pdfinfo -struct-text`: an element's type (or a quoted text, or "Object n g"), by depth. */
export interface StructLine {
  readonly depth: number;
  /** The structure type (H1, P, TD...), or undefined for a line of content. */
  readonly role: string | undefined;
  readonly text: string;
}

/** poppler's reading of the structure tree, in the tree's order (`pdfinfo -struct-text`). */
export async function pdfStructure(pdf: Uint8Array): Promise<StructLine[]> {
  const out = await withFile(pdf, async (path) => (await run('pdfinfo', ['-struct-text', path])).stdout);
  const lines: StructLine[] = [];
  for (const line of out.split('\n')) {
    if (line.trim() === '') continue;
    const depth = (line.length - line.trimStart().length) / 2;
    const text = line.trim();
    // Attribute lines ("/Scope /Column") belong to the element above; element lines are a name, maybe "(block)" or ":".
    const role = /^[A-Za-z][A-Za-z0-9]*(?: \((?:block|inline)\))?:?$/.test(text) ? (text.split(/[ :]/)[0] as string) : undefined;
    lines.push({ depth, role, text });
  }
  return lines;
}

/** One outline (bookmark) entry as qpdf reads it: its title, the page its destination names (from 1), its kids. */
export interface OutlineLine {
  readonly title: string;
  readonly page: number;
  readonly kids: OutlineLine[];
}

/** qpdf's reading of the document outline (`qpdf --json --json-key=outlines`), and the catalog's /PageMode. */
export async function pdfOutline(pdf: Uint8Array): Promise<{ outline: OutlineLine[]; pageMode: string | undefined }> {
  type Raw = { title: string; destpageposfrom1: number; kids: Raw[] };
  const read = (raw: Raw): OutlineLine => ({ title: raw.title, page: raw.destpageposfrom1, kids: raw.kids.map(read) });
  const json = await withFile(pdf, async (path) => JSON.parse((await run('qpdf', ['--json=2', '--json-key=outlines', '--json-key=qpdf', path])).stdout) as {
    outlines: Raw[];
    qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
  });
  const catalog = Object.values(json.qpdf[1]).find((object) => object.value?.['/Type'] === '/Catalog')?.value;
  return { outline: json.outlines.map(read), pageMode: catalog?.['/PageMode'] as string | undefined };
}
