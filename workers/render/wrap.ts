// Greedy line breaking: paragraphs split on newlines, lines filled word by
// word, a word wider than the line broken between characters. Widths come
// from the font's metrics, so lines never overflow their box. Each word is
// measured once and widths are summed: the fonts used here have no kerning
// in their width tables, so a line's width is the sum of its parts.
export type Measure = (text: string) => number;

export function wrapText(text: string, width: number, measure: Measure): string[] {
  const space = measure(' ');
  const lines: string[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    const words = paragraph.split(/[ \t]+/).filter((word) => word.length > 0);
    let line = '';
    let lineWidth = 0;
    const flush = () => {
      lines.push(line);
      line = '';
      lineWidth = 0;
    };
    for (const word of words) {
      const wordWidth = measure(word);
      const needed = line === '' ? wordWidth : lineWidth + space + wordWidth;
      if (needed <= width) {
        line = line === '' ? word : `${line} ${word}`;
        lineWidth = needed;
        continue;
      }
      if (line !== '') flush();
      if (wordWidth <= width) {
        line = word;
        lineWidth = wordWidth;
        continue;
      }
      // A word wider than the line (a URL, a long number) is broken between characters.
      for (const char of word) {
        const charWidth = measure(char);
        if (line !== '' && lineWidth + charWidth > width) flush();
        line += char;
        lineWidth += charWidth;
      }
    }
    flush();
  }
  return lines;
}
