// add_page: a new page, of the document's size or its own.
import * as v from 'valibot';
import { orientation, pageSizeName, type OperationType } from '../common.js';

const schema = v.strictObject({
  type: v.literal('add_page'),
  page_size: v.optional(pageSizeName),
  orientation: v.optional(orientation),
});

export const addPage: OperationType<typeof schema> = {
  schema,
  run(op, context) {
    context.flow.newPage(context.pageSize(op.page_size, op.orientation));
  },
};
