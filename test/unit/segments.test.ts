// segmentsOf (workers/util/segments.ts) cuts a long text into pieces so that
// V8's per-segment copy of the whole input does not make segmenting it
// quadratic; the pieces must give exactly the segments the whole text gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { segmentsOf } from '../../workers/util/segments.js';

/** Texts of several pieces each, in every granularity the workers use, with the cuts' hard cases. */
const CASES: ReadonlyArray<readonly [string, Intl.SegmenterOptions['granularity'], string]> = [
  ['en', 'word', 'The quick brown fox jumps over the lazy dog. '.repeat(300)],
  ['en', 'word', 'a\nb\r\nc '.repeat(2000)],
  ['th', 'word', 'สวัสดีครับยินดีต้อนรับสู่ประเทศไทย'.repeat(400)],
  ['zh', 'word', '这是一个很长的中文段落，没有空格，所以必须在字符之间断行。'.repeat(400)],
  ['en', 'sentence', 'Dr. Smith arrived at 5 p.m. today. Was it late? Yes! '.repeat(300)],
  ['ja', 'sentence', '今日は晴れです。明日は雨でしょう！'.repeat(600)],
  ['en', 'grapheme', 'e\u0301a\u0308👍🏽🇫🇷'.repeat(1500)],
];

const listed = (segments: Iterable<Intl.SegmentData>): string[] => {
  const out: string[] = [];
  for (const { index, segment, isWordLike } of segments) out.push(`${index}:${segment}:${String(isWordLike)}`);
  return out;
};

for (const [locale, granularity, text] of CASES) {
  test(`${granularity} segments of a ${text.length}-unit ${locale} text are those of the whole text`, () => {
    const segmenter = new Intl.Segmenter(locale, { granularity });
    assert.ok(text.length > 4096, 'long enough to be cut');
    assert.deepEqual(listed(segmentsOf(segmenter, text)), listed(segmenter.segment(text)));
  });
}

test('each segment says where it is in the whole text', () => {
  const text = 'word '.repeat(2000);
  for (const { index, segment, input } of segmentsOf(new Intl.Segmenter('en', { granularity: 'word' }), text)) {
    assert.equal(text.slice(index, index + segment.length), segment);
    assert.equal(input, text);
  }
});
