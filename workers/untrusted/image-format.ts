// What image container untrusted bytes really are, from their first bytes,
// before libvips sees them. Only raster containers are recognised: libvips
// could also open SVG (librsvg), and a build with poppler or PDFium would
// open PDF; callers refuse anything this does not name, and then check that
// the decoder libvips picks agrees.

export type RasterFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' | 'heif';

/** HEIF major brands libheif reads (ISO/IEC 23008-12 annex B, and AV1's avif/avis). */
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1', 'avif', 'avis']);

export function sniffRaster(b: Uint8Array): RasterFormat | undefined {
  const ascii = (from: number, to: number) => Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, Math.min(to, b.length) - from)).toString('latin1');
  if (b.length < 12) return undefined;
  if (ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'gif';
  // Classic and BigTIFF, little- and big-endian.
  if (['II*\0', 'MM\0*', 'II+\0', 'MM\0+'].includes(ascii(0, 4))) return 'tiff';
  if (ascii(4, 8) === 'ftyp' && HEIF_BRANDS.has(ascii(8, 12))) return 'heif';
  return undefined;
}
