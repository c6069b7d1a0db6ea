// The one-line pieces of the approvals panel around the list: the empty state, the
// reject-reason prompt, the outcome of the last action and the key help.
import { Text } from 'ink';
import { describeAlways, describeLifetime, type AlwaysTarget } from '../core/approvals/always-scope.js';
import { safeForDisplay } from '../core/display.js';

/**
 * How long the outcome of a key stays up: long enough to read a line, short enough that it is
 * not taken, minutes later, for the outcome of a newer key or news about the list as it is now.
 */
export const STATUS_SHOW_MS = 5000;
/** An error stays up longer: it can run to two lines, and its end says what to do next. */
export const ERROR_SHOW_MS = 10_000;

/** The outcome of the last key action, shown until the next one or until it expires. */
export type PanelStatus = {
  ok: boolean;
  message: string;
  /** When it was set, in epoch ms by the panel's clock. */
  atMs: number;
};

/** Whether `status` is still up at `nowMs`. */
export function statusShown(status: PanelStatus | undefined, nowMs: number): status is PanelStatus {
  return status !== undefined && nowMs - status.atMs < (status.ok ? STATUS_SHOW_MS : ERROR_SHOW_MS);
}

/** Shown when nothing is waiting; the panel keeps watching for new requests. */
export function EmptyState() {
  return <Text>Nothing is waiting for approval. New requests appear here as agents ask. Press q to quit.</Text>;
}

/** The reject-reason input: what is being rejected, the text so far and a cursor. */
export function ReasonPrompt({ id, text }: { id: string; text: string }) {
  return (
    <Text wrap="truncate-start">
      Reason for rejecting {id} (Enter rejects, Esc cancels): {text}
      <Text inverse> </Text>
    </Text>
  );
}

/**
 * The result of the last action: green when it worked, red with the queue's message when
 * not. It wraps rather than cuts: the end of an error message says what to do next.
 */
export function StatusLine({ status }: { status: PanelStatus }) {
  return <Text color={status.ok ? 'green' : 'red'}>{status.message}</Text>;
}

/** The keys of the list view; `scroll` adds the keys that scroll the selected call's whole text. */
export function KeyHelp({ scroll }: { scroll: boolean }) {
  return <Text dimColor>↑/↓ or k/j select · a allow · r reject · A always (this session) · P always (project) · q quit{scroll ? ' · [ ] scroll' : ''}</Text>;
}

/**
 * What `A` and `P` would allow for the selected request, shown before either is pressed:
 * the tool, exactly which paths, command or input, and how long the rule lasts.
 */
export function AlwaysScopeLine({ target, sessionId }: { target: AlwaysTarget | null | undefined; sessionId: string }) {
  const project = target ? ` · P: the same, ${describeLifetime('project')}` : '';
  return (
    <Text color="magenta">
      A: {safeForDisplay(describeAlways(target, 'session', sessionId))}
      {project}
    </Text>
  );
}

/** Why the selected call is the person's to answer (the classifier's reason), when the request says. */
export function WhyLine({ why }: { why: string }) {
  return <Text color="cyan">why you: {safeForDisplay(why)}</Text>;
}
