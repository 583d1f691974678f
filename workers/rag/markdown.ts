// A found table as GitHub-flavoured Markdown, the form language models read
// tables best in: the first grid row is the header, a spanning cell's text
// sits in its first grid position and the positions it covers stay empty,
// and `|` inside a cell is escaped. `rows` keeps each body row's line, so a
// table too long for one chunk is cut between rows with its header repeated.
import type { Table } from '../read/tables/types.js';

export function tableMarkdown(table: Table): { markdown: string; rows: string[] } {
  const grid: string[][] = Array.from({ length: table.rows }, () => Array.from({ length: table.columns }, () => ''));
  for (const cell of table.cells) {
    const row = grid[cell.row];
    if (row !== undefined && cell.column < row.length) row[cell.column] = cell.text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();
  }
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const [header = [], ...body] = grid;
  const head = `${line(header)}\n${line(header.map(() => '---'))}`;
  const rows = body.map(line);
  return { markdown: [head, ...rows].join('\n'), rows: [head, ...rows] };
}
