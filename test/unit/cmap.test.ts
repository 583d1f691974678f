// The CMap reader the font rules use (workers/analysis/cmap.ts): ToUnicode
// bfchar and both bfrange forms, codespace ranges splitting shown bytes
// into codes, and an embedded CMap's WMode and usecmap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCMap, splitCodes } from '../../workers/analysis/cmap.js';

const TO_UNICODE = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0020> <0011> <D83DDE00> endbfchar
2 beginbfrange <0024> <0026> <0041> <0030> <0031> [<0066006C> <FFFE>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`;

test('a ToUnicode CMap maps single codes, incrementing ranges and array ranges, surrogate pairs included', () => {
  const cmap = parseCMap(Buffer.from(TO_UNICODE, 'latin1'));
  assert.equal(cmap.unicode.get(0x03), ' ');
  assert.equal(cmap.unicode.get(0x11), '\u{1F600}');
  assert.deepEqual([0x24, 0x25, 0x26].map((code) => cmap.unicode.get(code)), ['A', 'B', 'C']);
  assert.equal(cmap.unicode.get(0x30), 'fl');
  assert.equal(cmap.unicode.get(0x31), '\ufffe');
  assert.equal(cmap.unicode.has(0x27), false);
  assert.deepEqual(cmap.codespaces, [[0, 0xffff, 2]]);
});

test('codespace ranges split shown bytes into one- and two-byte codes; without ranges the fallback length applies', () => {
  const mixed = parseCMap(Buffer.from('2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange /WMode 1 def /90ms-RKSJ-H usecmap', 'latin1'));
  assert.deepEqual(splitCodes(new Uint8Array([0x41, 0x81, 0x40, 0x42]), mixed.codespaces), [0x41, 0x8140, 0x42]);
  assert.equal(mixed.wmode, 1);
  assert.equal(mixed.usecmap, '90ms-RKSJ-H');
  assert.deepEqual(splitCodes(new Uint8Array([0x00, 0x41, 0x00]), [], 2), [0x0041, 0x00]);
  assert.equal(parseCMap(new Uint8Array()).wmode, undefined);
});
