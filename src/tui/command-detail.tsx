// The selected approval's whole summary, when its one-line row cannot hold it: wrapped to
// the terminal's width and shown a window of lines at a time, scrolled with PgUp/PgDn or [ ].
import { Box, Text } from 'ink';
import { safeForDisplay } from '../core/display.js';
import type { PendingApproval } from '../runtime/approvals/index.js';
import { displayText, textColumns, wrapColumns } from './format.js';

/** Columns left of each line of the whole call, so it reads as part of the selected row. */
const DETAIL_INDENT = 4;
/** Fewest lines of the whole call shown, however short the terminal: enough to read a clause. */
const MIN_DETAIL_ROWS = 3;

export interface CommandDetailProps {
  /** Every line of the call, from `wrapColumns`. */
  lines: readonly string[];
  /** Index of the first line shown. */
  offset: number;
  /** How many lines are shown at once. */
  rows: number;
}

/** Lines of the selected call's summary and how many of them fit, or null when its row shows it whole. */
export type DetailLayout = { lines: string[]; rows: number } | null;

/**
 * Whether `item`'s row (marker, tool, summary on one line of `columns`) cuts its summary,
 * and if so its whole summary wrapped to the width, with at most half of `spareRows` for it.
 * @example detailLayout(item, 80, 17) // { lines: ['Bash: echo …', …], rows: 7 }
 */
export function detailLayout(item: PendingApproval | undefined, columns: number, spareRows: number): DetailLayout {
  if (item === undefined) return null;
  const summary = safeForDisplay(item.summary);
  // The row: `› ` + tool + ` ` + summary.
  if (2 + textColumns(displayText(item.tool)) + 1 + textColumns(summary) <= columns) return null;
  const lines = wrapColumns(summary, columns - DETAIL_INDENT);
  // One row is the heading.
  const rows = Math.min(lines.length, Math.max(MIN_DETAIL_ROWS, Math.floor(spareRows / 2) - 1));
  return { lines, rows };
}

/** A heading that says which lines are shown, then those lines. */
export function CommandDetail({ lines, offset, rows }: CommandDetailProps) {
  const end = Math.min(lines.length, offset + rows);
  const where = lines.length <= rows ? `${lines.length} line${lines.length === 1 ? '' : 's'}` : `lines ${offset + 1}–${end} of ${lines.length}; PgUp/PgDn or [ ] to scroll`;
  const pad = ' '.repeat(DETAIL_INDENT);
  return (
    <Box flexDirection="column">
      <Text dimColor>{`  whole call (${where}):`}</Text>
      {lines.slice(offset, end).map((line, i) => (
        <Text key={offset + i}>{`${pad}${line}`}</Text>
      ))}
    </Box>
  );
}
