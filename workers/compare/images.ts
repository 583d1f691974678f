// The images a page paints, for comparison: where each lands on the page
// (read/images.ts walks the operator list for the placements) and a hash
// of the pixels pdf.js decoded, so an image re-encoded without a visible
// change (another compression, another object number) compares equal, and
// a changed pixel does not.
import { createHash } from 'node:crypto';
import { imagePlacements } from '../read/images.js';
import type { ReaderPage } from '../read/types.js';

export interface ImageMark {
  /** SHA-256 of the decoded samples and their size, hex, shortened to 16 characters. */
  readonly hash: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly pixelWidth: number;
  readonly pixelHeight: number;
}

/** Bounds the work on pages that tile thousands of small images. */
const MAX_IMAGES = 500;

export async function pageImages(page: ReaderPage): Promise<ImageMark[]> {
  const images: ImageMark[] = [];
  for (const placement of imagePlacements(await page.operators())) {
    if (images.length >= MAX_IMAGES) break;
    const decoded = placement.inlineImage ?? (placement.name === null ? null : page.decodedImage(placement.name));
    if (decoded === null) continue;
    const hash = createHash('sha256').update(`${decoded.width}x${decoded.height}:`).update(decoded.data).digest('hex').slice(0, 16);
    images.push({ hash, x: placement.x, y: placement.y, width: placement.width, height: placement.height, pixelWidth: decoded.width, pixelHeight: decoded.height });
  }
  return images;
}
