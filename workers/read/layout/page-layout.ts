// A page's text as blocks in reading order: items → lines → blocks → order.
// What parse's text_blocks, extract-text's reading_order and the render
// API's `layout: blocks` stand on.
import type { TextItem } from '../types.js';
import { groupBlocks, type TextBlock } from './blocks.js';
import { groupLines } from './lines.js';
import { readingOrder } from './order.js';

export type { TextBlock } from './blocks.js';
export type { TextLine } from './lines.js';

/**
 * Blocks in reading order (index = reading order). `language`: a BCP 47 tag
 * for joining text in scripts without spaces; `pageWidth`: tells a mixed
 * right-to-left line's direction when its text alone cannot (lines.ts).
 */
export function layoutPage(items: readonly TextItem[], language?: string, pageWidth?: number): TextBlock[] {
  const blocks = groupBlocks(groupLines(items, language, pageWidth));
  return readingOrder(blocks).map((index) => blocks[index] as TextBlock);
}

/** The page's text in reading order: blocks separated by a blank line, lines by a line break. */
export function pageText(blocks: readonly TextBlock[]): string {
  return blocks.map((block) => block.text).join('\n\n');
}
