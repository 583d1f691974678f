// The font-subset scenario's requests: DejaVu Sans (757 KB, the npm
// package's) subset to 100 code points drawn from its Latin, Greek and
// Cyrillic repertoire, the kind of subset a PDF writer asks for per
// document. Each request asks for a different set, so that neither the
// server nor the bare pool can answer from its cache of identical requests
// (it holds 128 results; REQUESTS is several times that).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEJAVU_SANS_PATH = fileURLToPath(new URL('../../node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf', import.meta.url));
export const SUBSET_PATH = '/v1/font/subset';
export const CODEPOINTS_PER_REQUEST = 100;
const REQUESTS = 1024;

/** Code points DejaVu Sans maps: Basic Latin, Latin-1, Latin Extended-A and -B, Greek, Cyrillic. */
const REPERTOIRE = [
  ...range(0x20, 0x7e),
  ...range(0xa0, 0x24f),
  ...range(0x391, 0x3a1),
  ...range(0x3a3, 0x3c9),
  ...range(0x400, 0x45f),
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

export interface FontRequest {
  readonly codepoints: readonly number[];
  /** The JSON body, built on each call from the shared font part (~1 MB) and this request's code points. */
  body(): Buffer;
}

/** Deterministic sets (xorshift32), so every run and every baseline asks for the same subsets. */
export function fontRequests(): FontRequest[] {
  // One copy of the font for all requests: 1024 bodies of 1 MB each would hold a gigabyte.
  const head = Buffer.from(`{"font_data":"${readFileSync(DEJAVU_SANS_PATH).toString('base64')}","codepoints":`, 'utf8');
  let x = 2463534242;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % REPERTOIRE.length;
  };
  return Array.from({ length: REQUESTS }, () => {
    const picked = new Set<number>();
    while (picked.size < CODEPOINTS_PER_REQUEST) picked.add(REPERTOIRE[next()] as number);
    const codepoints = [...picked].sort((a, b) => a - b);
    const tail = Buffer.from(`${JSON.stringify(codepoints)}}`, 'utf8');
    return { codepoints, body: () => Buffer.concat([head, tail]) };
  });
}

/** Hands out the requests in turn, across all concurrent loops. */
export function rotation(requests: readonly FontRequest[]): () => FontRequest {
  let i = 0;
  return () => requests[i++ % requests.length] as FontRequest;
}
