// PNG pass-through: eligible PNGs are embedded with their IDAT data unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { passThroughPng } from '../../workers/seams/png.js';
import { render } from '../../workers/render/task.js';
import { qpdfCheck } from '../helpers/pdf-tools.js';

const solid = (channels: 3 | 4, grey = false) =>
  sharp({ create: { width: 40, height: 30, channels, background: channels === 4 ? { r: 200, g: 20, b: 20, alpha: 0.5 } : { r: 20, g: 120, b: 200 } } })
    .toColourspace(grey ? 'b-w' : 'srgb')
    .png()
    .toBuffer();

test('grey and RGB PNGs pass through; alpha, palette and interlaced ones do not', async () => {
  const rgb = passThroughPng(new Uint8Array(await solid(3)));
  assert.deepEqual(rgb && { w: rgb.width, h: rgb.height, colors: rgb.colors, bits: rgb.bitsPerComponent }, { w: 40, h: 30, colors: 3, bits: 8 });
  assert.equal(passThroughPng(new Uint8Array(await solid(3, true)))?.colors, 1);
  assert.equal(passThroughPng(new Uint8Array(await solid(4))), undefined);
  const palette = await sharp(await solid(3)).png({ palette: true }).toBuffer();
  assert.equal(passThroughPng(new Uint8Array(palette)), undefined);
  const interlaced = await sharp(await solid(3)).png({ progressive: true }).toBuffer();
  assert.equal(passThroughPng(new Uint8Array(interlaced)), undefined);
  assert.equal(passThroughPng(new Uint8Array([1, 2, 3])), undefined);
});

test('the PDF carries the PNG image data byte for byte, and the file checks', async () => {
  const png = await solid(3);
  const idat = passThroughPng(new Uint8Array(png))?.data;
  assert.ok(idat);
  const json = JSON.stringify({ operations: [{ type: 'add_image', data: png.toString('base64') }] });
  const bytes = new TextEncoder().encode(json);
  const outcome = await render({ body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options: {} });
  assert.ok(outcome.ok);
  const pdf = Buffer.from(outcome.value.body);
  assert.ok(pdf.includes(Buffer.from(idat)), 'IDAT data embedded unchanged');
  assert.match(await qpdfCheck(new Uint8Array(pdf)), /No syntax or stream encoding errors/);
});
