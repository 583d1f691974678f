// Block content as the inline spans of one table cell. Cells of the shared
// table layer (table-layout.ts) hold styled text only, so what HTML puts
// in a cell is kept as text: blocks become lines, list items keep their
// markers, a nested table becomes one line per row. Rules and images in
// cells are left out.
import type { Span } from '../inline.js';
import type { Block } from './blocks.js';

export function flattenBlocks(blocks: readonly Block[]): Span[] {
  const out: Span[] = [];
  /** At the start of a line: the next block needs no break before it (true after a list marker too). */
  let fresh = true;
  const lineBreak = () => {
    const last = out[out.length - 1];
    if (!fresh && last !== undefined && !last.text.endsWith('\n')) out.push({ text: '\n', style: last.style });
    fresh = true;
  };
  const push = (span: Span) => {
    out.push(span);
    fresh = false;
  };
  const visit = (list: readonly Block[]) => {
    for (const block of list) {
      switch (block.kind) {
        case 'text':
        case 'pre':
          lineBreak();
          for (const span of block.spans) push(span);
          break;
        case 'list':
          for (const item of block.items) {
            lineBreak();
            if (item.marker !== undefined) out.push({ text: `${item.marker.text} `, style: item.marker.style });
            visit(item.blocks);
          }
          break;
        case 'quote':
          visit(block.blocks);
          break;
        case 'table':
          for (const row of [...block.header, ...block.rows]) {
            lineBreak();
            row.forEach((cell, index) => {
              const first = cell.spans[0];
              if (index > 0 && first !== undefined) push({ text: ' ', style: first.style });
              for (const span of cell.spans) push(span.text.includes('\n') ? { text: span.text.replace(/\n/g, ' '), style: span.style } : span);
            });
          }
          break;
        case 'rule':
        case 'image':
          break;
      }
    }
  };
  visit(blocks);
  return out;
}
