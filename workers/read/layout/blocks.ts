// Lines into blocks (paragraphs, the pieces of a column). A line joins the
// block whose last line sits right above it in the same direction: the gap
// between them at most PARAGRAPH_GAP_EM of the font size, their extents
// along the line overlapping, their sizes alike. What is not joined starts a
// block of its own. Reading order is decided afterwards (order.ts).
import { dominant, pageBox, type Box, type TextLine } from './lines.js';

/** Lines set solid to 1.5-spaced leave gaps up to ~0.9 em; a blank line between paragraphs leaves more. */
const PARAGRAPH_GAP_EM = 0.9;
/** Sizes differing more than this ratio are a heading and its text, not one paragraph. */
const SIZE_RATIO = 1.25;

export interface TextBlock extends Box {
  readonly text: string;
  readonly lines: readonly TextLine[];
  readonly font: string;
  readonly fontSize: number;
  readonly rotation: number;
}

interface OpenBlock {
  readonly lines: TextLine[];
  u: number;
  end: number;
  bottom: number;
  readonly rotation: number;
}

export function groupBlocks(lines: readonly TextLine[]): TextBlock[] {
  const sorted = [...lines].sort((a, b) => a.rotation - b.rotation || a.v - b.v || a.u - b.u);
  const blocks: OpenBlock[] = [];
  for (const line of sorted) {
    const target = bestBlock(blocks, line);
    if (target === null) {
      blocks.push({ lines: [line], u: line.u, end: line.u + line.length, bottom: line.v + line.thickness, rotation: line.rotation });
    } else {
      target.lines.push(line);
      target.u = Math.min(target.u, line.u);
      target.end = Math.max(target.end, line.u + line.length);
      target.bottom = Math.max(target.bottom, line.v + line.thickness);
    }
  }
  return blocks.map(close);
}

function bestBlock(blocks: readonly OpenBlock[], line: TextLine): OpenBlock | null {
  let best: OpenBlock | null = null;
  let bestGap = Infinity;
  for (const block of blocks) {
    if (block.rotation !== line.rotation) continue;
    const last = block.lines[block.lines.length - 1] as TextLine;
    const gap = line.v - block.bottom;
    if (gap < -0.3 * line.thickness || gap > PARAGRAPH_GAP_EM * Math.max(line.fontSize, last.fontSize)) continue;
    // A paragraph keeps its leading: a gap much wider than the one between its last two lines starts another block.
    const previous = block.lines[block.lines.length - 2];
    if (previous !== undefined && gap > 1.5 * Math.max(0, last.v - (previous.v + previous.thickness)) + 0.2 * line.fontSize) continue;
    const ratio = Math.max(line.fontSize, last.fontSize) / Math.max(0.1, Math.min(line.fontSize, last.fontSize));
    if (ratio > SIZE_RATIO) continue;
    const overlap = Math.min(block.end, line.u + line.length) - Math.max(block.u, line.u);
    if (overlap <= 0.3 * Math.min(block.end - block.u, line.length) && !indentedUnder(last, line)) continue;
    if (gap < bestGap) {
      best = block;
      bestGap = gap;
    }
  }
  return best;
}

/** A short last line or a first-line indent still continues the paragraph when it starts within the block. */
function indentedUnder(above: TextLine, line: TextLine): boolean {
  return line.u >= above.u - 1 && line.u <= above.u + above.length;
}

function close(block: OpenBlock): TextBlock {
  const lines = block.lines;
  // Lines keep their breaks: what a line is matters to readers of the text (addresses, verse, code).
  const text = lines.map((line) => line.text).join('\n');
  const fonts = new Map<string, number>();
  const sizes = new Map<number, number>();
  for (const line of lines) {
    for (const item of line.items) {
      fonts.set(item.font, (fonts.get(item.font) ?? 0) + item.text.length);
      sizes.set(item.fontSize, (sizes.get(item.fontSize) ?? 0) + item.text.length);
    }
  }
  const top = Math.min(...lines.map((l) => l.v));
  return {
    text,
    lines,
    font: dominant(fonts),
    fontSize: dominant(sizes),
    rotation: block.rotation,
    ...pageBox(block.rotation, block.u, top, block.end - block.u, block.bottom - top),
  };
}
