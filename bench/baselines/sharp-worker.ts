// The bare-sharp pool's worker (baseline for the image scenario): the same
// libvips settings as Platen's workers (workers/seams/vips.ts: one libvips
// thread, a small cache) and the same pipeline as the compress request the
// scenario sends, on raw JPEG bytes: no HTTP, no JSON, no base64, no checks.
import { Piscina } from 'piscina';
import sharp from '../../workers/seams/vips.js';

export interface SharpTask {
  readonly jpeg: ArrayBuffer;
  readonly width: number;
  readonly quality: number;
}

export default async function compress(task: SharpTask): Promise<unknown> {
  const out = await sharp(new Uint8Array(task.jpeg), { failOn: 'warning', autoOrient: true, pages: 1 })
    .resize({ width: task.width, fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' })
    .toColourspace('srgb')
    .jpeg({ quality: task.quality })
    .toBuffer();
  const result = new Uint8Array(out.byteLength);
  result.set(out);
  return Piscina.move(result.buffer);
}
