// add_page: a new page, of the document's size or its own.
import * as v from 'valibot';
import { orientation, pageSizeName } from '../fields.js';
import type { OperationType } from '../context.js';
import { checkContentBox } from '../flow.js';

const schema = v.strictObject({
  type: v.literal('add_page'),
  page_size: v.optional(pageSizeName),
  orientation: v.optional(orientation),
});

export const addPage: OperationType<typeof schema> = {
  schema,
  run(op, context, at) {
    const size = context.pageSize(op.page_size, op.orientation);
    checkContentBox(size, context.flow.margins, `${at}.page_size`);
    context.flow.newPage(size);
  },
};
