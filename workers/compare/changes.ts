// Changes between two pages (or two stretches of pages): words from a diff
// of their tokens, formatting of the words both share, images by pixels and
// placement. Each change names the page and position where it is seen:
// in document B for what B has (additions, modifications, formatting,
// added and changed images), in document A for what B no longer has.
import type { ImageMark } from './images.js';
import { diffRuns } from './sequence-diff.js';
import type { Token } from './tokens.js';

export type ChangeType =
  | 'addition'
  | 'deletion'
  | 'modification'
  | 'format'
  | 'image_added'
  | 'image_removed'
  | 'image_changed'
  | 'page_added'
  | 'page_removed';

export interface Change {
  readonly type: ChangeType;
  readonly page: number;
  readonly before: string;
  readonly after: string;
  readonly position: { readonly x: number; readonly y: number };
  /** Format changes: the words whose formatting changed (before and after describe the formatting). */
  readonly text?: string;
  /** Words removed (deletion, modification) and added (addition, modification), for the summary. */
  readonly wordsRemoved?: number;
  readonly wordsAdded?: number;
}

/** A change's before/after text is cut here (a whole rewritten chapter is one change, not a 1 MB string). */
const MAX_TEXT = 2000;

export function joinWords(tokens: readonly Token[]): string {
  const text = tokens.map((t) => t.text).join(' ');
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}

export function wordChanges(a: readonly Token[], b: readonly Token[], formatting: boolean): Change[] {
  const changes: Change[] = [];
  for (const run of diffRuns(a.length, b.length, (i, j) => (a[i] as Token).key === (b[j] as Token).key)) {
    const before = a.slice(run.aStart, run.aEnd);
    const after = b.slice(run.bStart, run.bEnd);
    if (run.equal) {
      if (formatting) changes.push(...formatChanges(before, after));
      continue;
    }
    const where = (after[0] ?? before[0]) as Token;
    const type: ChangeType = before.length === 0 ? 'addition' : after.length === 0 ? 'deletion' : 'modification';
    changes.push({
      type,
      page: where.page,
      before: joinWords(before),
      after: joinWords(after),
      position: { x: where.x, y: where.y },
      wordsRemoved: before.length,
      wordsAdded: after.length,
    });
  }
  return changes;
}

function style(t: Token): string {
  return `${t.font} ${t.size}pt ${t.color}`;
}

/** Runs of shared words whose font, size or colour changed the same way: one `format` change each. */
function formatChanges(a: readonly Token[], b: readonly Token[]): Change[] {
  const changes: Change[] = [];
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    const first = b[start] as Token;
    changes.push({
      type: 'format',
      page: first.page,
      before: style(a[start] as Token),
      after: style(first),
      text: joinWords(b.slice(start, end)),
      position: { x: first.x, y: first.y },
    });
    start = -1;
  };
  for (let k = 0; k < b.length; k++) {
    const before = style(a[k] as Token);
    const after = style(b[k] as Token);
    if (before === after) {
      flush(k);
      continue;
    }
    const sameRun = start >= 0 && style(a[start] as Token) === before && style(b[start] as Token) === after && (b[k] as Token).page === (b[start] as Token).page;
    if (!sameRun) {
      flush(k);
      start = k;
    }
  }
  flush(b.length);
  return changes;
}

/** Within this many points, a placement is the same. */
const PLACEMENT_TOLERANCE = 1;

function samePlace(a: ImageMark, b: ImageMark): boolean {
  return (
    Math.abs(a.x - b.x) <= PLACEMENT_TOLERANCE &&
    Math.abs(a.y - b.y) <= PLACEMENT_TOLERANCE &&
    Math.abs(a.width - b.width) <= PLACEMENT_TOLERANCE &&
    Math.abs(a.height - b.height) <= PLACEMENT_TOLERANCE
  );
}

function overlapArea(a: ImageMark, b: ImageMark): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

export function describeImage(image: ImageMark): string {
  return `image ${image.pixelWidth}x${image.pixelHeight} px, ${image.width} x ${image.height} pt at (${image.x}, ${image.y}), pixels ${image.hash}`;
}

/**
 * Images of two pages: the same pixels in the same place are unchanged;
 * the same pixels elsewhere (moved or resized) or other pixels in an
 * overlapping place are `image_changed`; the rest were added or removed.
 */
export function imageChanges(a: readonly ImageMark[], pageA: number, b: readonly ImageMark[], pageB: number): Change[] {
  const left = [...a];
  const right = [...b];
  const take = (match: (x: ImageMark, y: ImageMark) => boolean): [ImageMark, ImageMark][] => {
    const pairs: [ImageMark, ImageMark][] = [];
    for (let i = 0; i < left.length; i++) {
      const j = right.findIndex((candidate) => match(left[i] as ImageMark, candidate));
      if (j < 0) continue;
      pairs.push([left[i] as ImageMark, right[j] as ImageMark]);
      left.splice(i--, 1);
      right.splice(j, 1);
    }
    return pairs;
  };
  take((x, y) => x.hash === y.hash && samePlace(x, y));
  const changed = [...take((x, y) => x.hash === y.hash), ...take((x, y) => overlapArea(x, y) > 0)];
  const changes: Change[] = changed.map(([before, after]) => ({
    type: 'image_changed',
    page: pageB,
    before: describeImage(before),
    after: describeImage(after),
    position: { x: after.x, y: after.y },
  }));
  for (const image of left) changes.push({ type: 'image_removed', page: pageA, before: describeImage(image), after: '', position: { x: image.x, y: image.y } });
  for (const image of right) changes.push({ type: 'image_added', page: pageB, before: '', after: describeImage(image), position: { x: image.x, y: image.y } });
  return changes;
}
