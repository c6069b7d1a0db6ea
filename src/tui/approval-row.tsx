// One pending approval as two lines: the tool and its summary (cut to the terminal width;
// the panel shows the selected one whole below), then who asked and how long is left.
import { Box, Text } from 'ink';
import type { PendingApproval } from '../runtime/approvals/index.js';
import { safeForDisplay } from '../core/display.js';
import { displayText, formatTimeLeft } from './format.js';

/** Under this many milliseconds left, the time is shown in red. */
const URGENT_MS = 30_000;

export interface ApprovalRowProps {
  item: PendingApproval;
  selected: boolean;
  /** The current time in epoch milliseconds; the panel ticks it once a second. */
  nowMs: number;
}

/** Renders one pending approval; the selected one gets a `›` marker and bold text. */
export function ApprovalRow({ item, selected, nowMs }: ApprovalRowProps) {
  const left = Date.parse(item.expires_at) - nowMs;
  return (
    <Box flexDirection="column">
      {/* One Text for the whole line, so Ink cuts the summary, never the marker or the tool. */}
      <Text bold={selected} wrap="truncate-end">
        <Text color="cyan">{selected ? '› ' : '  '}</Text>
        <Text color="yellow">{displayText(item.tool)}</Text> {safeForDisplay(item.summary)}
      </Text>
      <Text dimColor wrap="truncate-end">
        {'    '}session {displayText(item.session_id)} · agent {displayText(item.agent)} · <Text color={left < URGENT_MS ? 'red' : undefined}>{formatTimeLeft(left)} left</Text> · {item.id}
      </Text>
    </Box>
  );
}
