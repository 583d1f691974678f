// The one diff algorithm compare uses: Myers' O(ND) difference algorithm in
// its linear-space variation (@jest/diff-sequences: memory O(N + M), time
// O((N + M) D), D the number of differences), over indices, so words,
// pages and blocks are all compared with the same code. Its output is
// turned into runs: equal stretches and the changed stretches between them.
import diffModule from '@jest/diff-sequences';

// The package is CommonJS with an ES wrapper whose default export is the
// function; TypeScript (NodeNext) types the default import as the CommonJS
// module object instead. Either way, this is the function.
type DiffSequences = typeof diffModule.default;
const diffSequences: DiffSequences = typeof diffModule === 'function' ? (diffModule as DiffSequences) : diffModule.default;

export interface Run {
  /** Equal runs pair a[aStart + k] with b[bStart + k]; changed runs replace a[aStart, aEnd) by b[bStart, bEnd). */
  readonly equal: boolean;
  readonly aStart: number;
  readonly aEnd: number;
  readonly bStart: number;
  readonly bEnd: number;
}

/**
 * Past this many cells of the edit graph (N x M) a diff may take seconds
 * when the sequences share little: D approaches N + M and the time
 * (N + M) D. Callers split their work (page by page) instead. 2.5e7 is
 * 5,000 words against 5,000, about ten dense pages each; measured at ~0.4 s
 * for two unrelated sequences of that size on this machine.
 */
export const MAX_GRAPH = 25_000_000;

export function diffRuns(aLength: number, bLength: number, isCommon: (a: number, b: number) => boolean): Run[] {
  const runs: Run[] = [];
  let a = 0;
  let b = 0;
  const common = (count: number, aCommon: number, bCommon: number) => {
    if (aCommon > a || bCommon > b) runs.push({ equal: false, aStart: a, aEnd: aCommon, bStart: b, bEnd: bCommon });
    runs.push({ equal: true, aStart: aCommon, aEnd: aCommon + count, bStart: bCommon, bEnd: bCommon + count });
    a = aCommon + count;
    b = bCommon + count;
  };
  diffSequences(aLength, bLength, isCommon, common);
  if (a < aLength || b < bLength) runs.push({ equal: false, aStart: a, aEnd: aLength, bStart: b, bEnd: bLength });
  return runs;
}
