// Table detection (workers/read/tables/) on synthetic pages: operator lists
// written by hand, rules and words placed by coordinates, so each rule of
// the finders (transforms, thin fills, hidden edges, spans, stream columns,
// turned pages) is checked where it applies.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSegments } from '../../workers/read/tables/lines.js';
import { latticeTables } from '../../workers/read/tables/lattice.js';
import { pageTables } from '../../workers/read/tables/page-tables.js';
import { rulingSegments } from '../../workers/read/tables/rulings.js';
import { streamTables } from '../../workers/read/tables/stream.js';
import type { Segment, Table, Word } from '../../workers/read/tables/types.js';
import type { Operators, TextItem } from '../../workers/read/types.js';

const OPS = {
  save: 10,
  restore: 11,
  transform: 12,
  constructPath: 91,
  paintFormXObjectBegin: 74,
  paintFormXObjectEnd: 75,
  stroke: 20,
  closeStroke: 21,
  fill: 22,
  eoFill: 23,
  fillStroke: 24,
  eoFillStroke: 25,
  closeFillStroke: 26,
  closeEOFillStroke: 27,
  endPath: 28,
  setFillRGBColor: 59,
};
const DRAW = { moveTo: 0, lineTo: 1, curveTo: 2, quadraticCurveTo: 3, closePath: 4 };
const PAGE_HEIGHT = 800;

type Op = readonly [number, unknown[]];

/** An operator list over a page 800 pt tall: user space y up, the page y down. */
function operators(list: readonly Op[]): Operators {
  return {
    fnArray: list.map(([fn]) => fn),
    argsArray: list.map(([, args]) => args),
    ops: OPS,
    drawOps: DRAW,
    toPage: (x, y) => [x, PAGE_HEIGHT - y] as const,
  };
}

const path = (paint: number, ...commands: number[]): Op => [OPS.constructPath, [paint, [new Float32Array(commands)], null]];
const rect = (x: number, y: number, w: number, h: number) => [DRAW.moveTo, x, y, DRAW.lineTo, x + w, y, DRAW.lineTo, x + w, y + h, DRAW.lineTo, x, y + h, DRAW.closePath];
const colour = (hex: string): Op => [OPS.setFillRGBColor, [hex]];

function sorted(segments: readonly Segment[]): string[] {
  return segments.map((s) => [s.x1, s.y1, s.x2, s.y2].map((n) => Math.round(n * 10) / 10).join(',')).sort();
}

/** Words of a line of text: 6 pt per character, 10 pt tall, a 2.5 pt word space (a quarter em of a 10 pt font). */
function line(y: number, ...cells: readonly (readonly [number, string])[]): Word[] {
  return cells.flatMap(([x, text]) => {
    let at = x;
    return text.split(' ').map((part) => {
      const word = { text: part, x: at, y, width: part.length * 6, height: 10 };
      at += part.length * 6 + 2.5;
      return word;
    });
  });
}

/** Horizontal and vertical rules of a grid, as segments. */
function grid(xs: readonly number[], ys: readonly number[]): Segment[] {
  const top = ys[0] as number;
  const bottom = ys[ys.length - 1] as number;
  const left = xs[0] as number;
  const right = xs[xs.length - 1] as number;
  return [...ys.map((y) => ({ x1: left, y1: y, x2: right, y2: y })), ...xs.map((x) => ({ x1: x, y1: top, x2: x, y2: bottom }))];
}

function textGrid(table: Table): string[][] {
  const rows = Array.from({ length: table.rows }, () => Array<string>(table.columns).fill('·'));
  for (const cell of table.cells) (rows[cell.row] as string[])[cell.column] = cell.text;
  return rows;
}

describe('ruling segments from the operator list', () => {
  test('a stroked rectangle under a transform lands where it is displayed; save/restore undoes the transform', () => {
    const segments = rulingSegments(
      operators([
        [OPS.save, []],
        [OPS.transform, [1, 0, 0, 1, 100, 200]],
        path(OPS.stroke, ...rect(0, 0, 50, 20)),
        [OPS.restore, []],
        path(OPS.stroke, DRAW.moveTo, 10, 10, DRAW.lineTo, 60, 10),
      ]),
    );
    assert.deepEqual(sorted(segments), sorted([
      { x1: 100, y1: 600, x2: 150, y2: 600 },
      { x1: 150, y1: 580, x2: 150, y2: 600 },
      { x1: 100, y1: 580, x2: 150, y2: 580 },
      { x1: 100, y1: 580, x2: 100, y2: 600 },
      { x1: 10, y1: 790, x2: 60, y2: 790 },
    ]));
  });

  test('a form XObject matrix applies inside it and not after it', () => {
    const segments = rulingSegments(
      operators([
        [OPS.paintFormXObjectBegin, [[2, 0, 0, 2, 0, 0], [0, 0, 100, 100]]],
        path(OPS.stroke, DRAW.moveTo, 0, 100, DRAW.lineTo, 50, 100),
        [OPS.paintFormXObjectEnd, []],
        path(OPS.stroke, DRAW.moveTo, 0, 100, DRAW.lineTo, 50, 100),
      ]),
    );
    assert.deepEqual(sorted(segments), sorted([{ x1: 0, y1: 600, x2: 100, y2: 600 }, { x1: 0, y1: 700, x2: 50, y2: 700 }]));
  });

  test('a thin filled rectangle is a rule along its middle; a diagonal, a curve and a white box are not rules', () => {
    const segments = rulingSegments(
      operators([
        path(OPS.fill, ...rect(10, 100, 200, 0.5)),
        path(OPS.fill, ...rect(10, 100, 1, 80)),
        path(OPS.stroke, DRAW.moveTo, 0, 0, DRAW.lineTo, 100, 100),
        path(OPS.stroke, DRAW.moveTo, 0, 0, DRAW.curveTo, 10, 10, 20, 10, 30, 0),
        colour('#ffffff'),
        path(OPS.fill, ...rect(300, 300, 100, 100)),
      ]),
    );
    assert.deepEqual(sorted(segments), sorted([{ x1: 10, y1: 699.75, x2: 210, y2: 699.75 }, { x1: 10.5, y1: 620, x2: 10.5, y2: 700 }]));
  });

  test('shaded cells give their edges, except where a box lies inside another of the same colour', () => {
    const segments = rulingSegments(
      operators([
        colour('#ccffff'),
        path(OPS.fill, ...rect(0, 0, 100, 50)),
        // A word processor's second shading of one line of text, inside the cell, in the same colour.
        path(OPS.fill, ...rect(10, 10, 80, 12)),
      ]),
    );
    assert.deepEqual(sorted(segments), sorted([
      { x1: 0, y1: 750, x2: 100, y2: 750 },
      { x1: 0, y1: 800, x2: 100, y2: 800 },
      { x1: 0, y1: 750, x2: 0, y2: 800 },
      { x1: 100, y1: 750, x2: 100, y2: 800 },
    ]));
  });
});

describe('merging segments into lines', () => {
  test('collinear pieces that touch become one line; a gap or another row keeps them apart; specks are dropped', () => {
    const { horizontal, vertical } = mergeSegments([
      { x1: 0, y1: 100, x2: 50, y2: 100 },
      { x1: 50.5, y1: 100.3, x2: 120, y2: 100.3 },
      { x1: 130, y1: 100, x2: 200, y2: 100 },
      { x1: 0, y1: 110, x2: 200, y2: 110 },
      { x1: 5, y1: 0, x2: 5, y2: 2 },
    ]);
    assert.deepEqual(
      horizontal.map((l) => [Math.round(l.at), l.from, l.to]),
      [
        [100, 0, 120],
        [100, 130, 200],
        [110, 0, 200],
      ],
    );
    assert.deepEqual(vertical, []);
  });
});

describe('lattice tables', () => {
  test('a 3 x 3 ruled grid gives its cells, words read in lines', () => {
    const words = [
      ...line(105, [15, 'Item'], [115, 'Qty'], [215, 'Price']),
      ...line(125, [15, 'Bearing 6204'], [115, '2'], [215, '4.10']),
      ...line(137, [15, 'sealed']),
      ...line(155, [15, 'Seal'], [115, '10'], [215, '0.95']),
    ];
    const [table, ...others] = latticeTables(mergeSegments(grid([10, 110, 210, 300], [100, 120, 150, 170])), words);
    assert.deepEqual(others, []);
    assert.ok(table);
    assert.deepEqual([table.x, table.y, table.width, table.height, table.rows, table.columns, table.method], [10, 100, 290, 70, 3, 3, 'lattice']);
    assert.deepEqual(textGrid(table), [
      ['Item', 'Qty', 'Price'],
      ['Bearing 6204\nsealed', '2', '4.10'],
      ['Seal', '10', '0.95'],
    ]);
    assert.ok(table.cells.every((c) => c.row_span === 1 && c.column_span === 1));
  });

  test('a missing rule makes a spanning cell: across columns in the header, down rows in the first column', () => {
    const segments = [
      // Rows at 100, 120, 140, 160; columns at 10, 110, 210, 310.
      ...[100, 120, 140, 160].map((y) => ({ x1: 10, y1: y, x2: 310, y2: y })),
      { x1: 10, y1: 100, x2: 10, y2: 160 },
      { x1: 310, y1: 100, x2: 310, y2: 160 },
      // The rule between columns 2 and 3 starts below the header: "Price" spans two columns.
      { x1: 210, y1: 120, x2: 210, y2: 160 },
      { x1: 110, y1: 100, x2: 110, y2: 160 },
    ].filter((s) => !(s.y1 === 140 && s.y2 === 140));
    // Put back the 140 rule except under the first column: "Group" spans rows 2 and 3.
    segments.push({ x1: 110, y1: 140, x2: 310, y2: 140 });
    const words = [...line(105, [15, 'Group'], [150, 'Price']), ...line(125, [15, 'A'], [115, 'net'], [215, 'gross']), ...line(145, [115, '1'], [215, '2'])];
    const [table] = latticeTables(mergeSegments(segments), words);
    assert.ok(table);
    assert.deepEqual(
      table.cells.map((c) => [c.row, c.column, c.row_span, c.column_span, c.text]),
      [
        [0, 0, 1, 1, 'Group'],
        [0, 1, 1, 2, 'Price'],
        [1, 0, 2, 1, 'A'],
        [1, 1, 1, 1, 'net'],
        [1, 2, 1, 1, 'gross'],
        [2, 1, 1, 1, '1'],
        [2, 2, 1, 1, '2'],
      ],
    );
  });

  test('a frame around one paragraph, and rules that never cross, are not tables', () => {
    const frame = grid([10, 300], [100, 200]);
    const parallel = [0, 1, 2, 3].map((i) => ({ x1: 10, y1: 300 + i * 20, x2: 300, y2: 300 + i * 20 }));
    assert.deepEqual(latticeTables(mergeSegments([...frame, ...parallel]), line(150, [20, 'Just a boxed note.'])), []);
  });

  test('two tables apart on one page are two tables, top first', () => {
    const tables = latticeTables(mergeSegments([...grid([10, 100, 200], [400, 420, 440]), ...grid([10, 100, 200], [100, 120, 140])]), []);
    assert.deepEqual(tables.map((t) => [t.y, t.rows, t.columns]), [
      [100, 2, 2],
      [400, 2, 2],
    ]);
  });
});

describe('stream tables', () => {
  test('columns from alignment alone: a missing value leaves its cell empty, a wrapped line is a row, a note below is not', () => {
    const words = [
      ...line(100, [20, 'Payroll period'], [200, 'Allowance'], [320, 'Rate']),
      ...line(114, [20, 'Weekly'], [200, '71.15'], [320, '1.0']),
      ...line(128, [20, 'Biweekly'], [320, '2.0']),
      ...line(142, [20, 'Daily or'], [200, '14.23'], [320, '0.2']),
      ...line(156, [20, 'miscellaneous']),
      ...line(170, [20, 'Monthly'], [200, '308.33'], [320, '30.0']),
      // A line of one chunk after the last row is a note under the table, not a row of it.
      ...line(190, [20, 'Source: IRS']),
    ];
    const [table, ...others] = streamTables(words);
    assert.deepEqual(others, []);
    assert.ok(table);
    assert.equal(table.method, 'stream');
    assert.deepEqual(textGrid(table), [
      ['Payroll period', 'Allowance', 'Rate'],
      ['Weekly', '71.15', '1.0'],
      ['Biweekly', '', '2.0'],
      ['Daily or', '14.23', '0.2'],
      ['miscellaneous', '', ''],
      ['Monthly', '308.33', '30.0'],
    ]);
  });

  test('prose, even in two columns, is not a table', () => {
    const sentence = 'the quick brown fox jumps over the lazy dog again';
    const words = Array.from({ length: 8 }, (_, i) => line(100 + i * 14, [20, sentence], [330, sentence])).flat();
    assert.deepEqual(streamTables(words), []);
    assert.deepEqual(streamTables(Array.from({ length: 8 }, (_, i) => line(100 + i * 14, [20, sentence])).flat()), []);
  });
});

describe('a page turned 90 degrees', () => {
  test('text running up the page and its rules are read as a table in the text\'s own direction', () => {
    // On the page: text at rotation 270 (reading bottom to top). In the text's
    // own frame (x' = -y, y' = x) this is the 2 x 2 grid of the first lattice test.
    const item = (text: string, frameX: number, frameY: number): TextItem => ({
      text,
      x: frameY,
      y: -frameX,
      width: text.length * 6,
      height: 10,
      baseline: frameY + 8,
      font: 'Helvetica',
      fontSize: 9,
      color: '#000000',
      bold: false,
      italic: false,
      rotation: 270,
      invisible: false,
      endsLine: true,
    });
    const items = [item('Item', -395, 105), item('Qty', -295, 105), item('Bolt', -395, 125), item('4', -295, 125)];
    // Frame grid x' in {-400, -300, -200}, y' in {100, 120, 140} → page x = y', page y = -x'.
    const list: Op[] = [
      ...[100, 120, 140].map((x) => path(OPS.stroke, DRAW.moveTo, x, PAGE_HEIGHT - 400, DRAW.lineTo, x, PAGE_HEIGHT - 200)),
      ...[400, 300, 200].map((y) => path(OPS.stroke, DRAW.moveTo, 100, PAGE_HEIGHT - y, DRAW.lineTo, 140, PAGE_HEIGHT - y)),
    ];
    const [table] = pageTables(items, operators(list));
    assert.ok(table);
    assert.deepEqual(textGrid(table), [
      ['Item', 'Qty'],
      ['Bolt', '4'],
    ]);
    // Its box is given back on the page: x 100..140, y 200..400.
    assert.deepEqual([table.x, table.y, table.width, table.height], [100, 200, 40, 200]);
  });
});
