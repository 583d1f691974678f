// add_image: a raster image from base64 data (or a data: URI; URLs are never
// fetched). Without x/y it flows: at the cursor, aligned in the content
// width, on a new page when it does not fit below the cursor, scaled down to
// the content width and to a page's height when larger. With x and y
// (points from the page's top-left corner) it is drawn on the current page
// and leaves the cursor where it was. images.ts decodes, checks and sizes.
import * as v from 'valibot';
import { decodeBase64Field, RenderError } from '../errors.js';
import { points } from '../fields.js';
import type { OperationType } from '../context.js';
import { MAX_IMAGE_BYTES, boxSize, drawImage, flowImage, loadImage } from '../images.js';
import { imageAltRequired } from '../tagging/alt-check.js';

const schema = v.pipe(
  v.strictObject({
    type: v.literal('add_image'),
    data: v.pipe(
      v.string(),
      // A friendlier answer than "not base64" for the most likely mistake.
      v.check((text) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(text), 'must be the image bytes as base64 or a data: URI; URLs are never fetched'),
    ),
    width: v.optional(v.pipe(points(), v.minValue(1))),
    height: v.optional(v.pipe(points(), v.minValue(1))),
    /** How the image fills a box given both width and height; default contain. */
    fit: v.optional(v.picklist(['contain', 'cover', 'fill'], 'must be contain, cover or fill')),
    align: v.optional(v.picklist(['left', 'center', 'right'], 'must be left, center or right')),
    x: v.optional(points()),
    y: v.optional(points()),
    /**
     * Alternate text, read out in place of the image in a tagged PDF (output.tagged), where it is
     * required; "" marks a decorative image, left out of the structure as an artifact.
     */
    alt: v.optional(v.pipe(v.string(), v.maxLength(10_000))),
    /** Space below the image when flowing; default half the font size, as after a paragraph. */
    spacing_after: v.optional(points(1_000)),
  }),
  v.forward(
    v.partialCheck([['x'], ['y']], (op) => (op.x === undefined) === (op.y === undefined), 'x and y go together: give both for absolute placement, or neither to flow'),
    ['y'],
  ),
  v.forward(
    v.partialCheck([['x'], ['align']], (op) => op.x === undefined || op.align === undefined, 'align places a flowing image; an image with x and y is placed exactly there'),
    ['align'],
  ),
);

export const addImage: OperationType<typeof schema> = {
  schema,
  async run(op, context, at) {
    const { flow } = context;
    if (flow.structure?.pdfUa === true && op.alt === undefined) {
      throw new RenderError([imageAltRequired(`${at}.alt`)]);
    }
    const field = `${at}.data`;
    const bytes = decodeBase64Field(op.data, MAX_IMAGE_BYTES, field, { 'too-large': 'IMAGE_TOO_LARGE', invalid: 'INVALID_FORMAT' });
    const image = await loadImage(context, bytes, field);
    const { structure } = flow;
    if (structure !== undefined) structure.enter(structure.figure(op.alt));
    if (op.x !== undefined && op.y !== undefined) {
      const [width, height] = boxSize(image, op, flow.width);
      drawImage(flow.page, image, op.x, op.y, width, height, op.fit);
    } else {
      flowImage(context, image, op);
      flow.advance(op.spacing_after ?? context.style.size * 0.5);
    }
    structure?.close();
  },
};
