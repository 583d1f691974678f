// The operation types this version renders, by their `type`.
import { addPage } from './ops/page.js';
import { setFont } from './ops/font.js';
import { addText } from './ops/text.js';

export const OPERATIONS = {
  add_page: addPage,
  set_font: setFont,
  add_text: addText,
} as const;

export type OperationName = keyof typeof OPERATIONS;
