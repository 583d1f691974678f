// The reader gives the pixels pdf.js decoded for an image a page paints
// (compare hashes them): an image drawn by our render engine comes back
// with its size and its samples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { openReader } from '../../workers/read/reader.js';
import { render } from '../../workers/render/task.js';

test('decodedImage gives the size and samples of an image the page paints, and null for an unknown name', async () => {
  const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();
  const body = new TextEncoder().encode(JSON.stringify({ operations: [{ type: 'add_image', data: png.toString('base64'), x: 100, y: 100, width: 80, height: 40 }] }));
  const outcome = await render({ body: body.buffer as ArrayBuffer, length: body.length, options: {} });
  assert.ok(outcome.ok);
  const document = await openReader(new Uint8Array(outcome.value.body), undefined, { data: 'pdf_data', password: 'password' });
  const page = await document.page(1);
  const operators = await page.operators();
  const paint = operators.fnArray.indexOf(operators.ops.paintImageXObject as number);
  const name = (operators.argsArray[paint] as unknown[])[0] as string;
  const image = page.decodedImage(name);
  assert.ok(image);
  assert.deepEqual([image.width, image.height, image.data.length], [40, 20, 40 * 20 * 3]);
  assert.deepEqual([...image.data.subarray(0, 3)], [200, 10, 10]);
  assert.equal(page.decodedImage('img_p0_999'), null);
  page.close();
  await document.close();
});
