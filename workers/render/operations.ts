// The operation types this version renders, by their `type`.
import { addPage } from './ops/page.js';
import { setFont } from './ops/font.js';
import { addText } from './ops/text.js';
import { addImage } from './ops/image.js';
import { addTable } from './ops/table.js';
import { addHtml } from './ops/html.js';

export const OPERATIONS = {
  add_page: addPage,
  set_font: setFont,
  add_text: addText,
  add_image: addImage,
  add_table: addTable,
  add_html: addHtml,
} as const;

export type OperationName = keyof typeof OPERATIONS;
