// Entry point of `gatehouse tui`: draws the approvals panel on the terminal with Ink
// and returns when the user quits (q or Ctrl+C).
import { render } from 'ink';
import type { Principal } from '../core/approvals/principal.js';
import { ApprovalQueue } from '../runtime/approvals/index.js';
import { ApprovalsPanel } from './approvals-panel.js';

export interface RunTuiOptions {
  /** The project state folder whose approval queue to show. */
  projectState: string;
  /** Who is deciding: the `value` of `osUserPrincipal(userInfo().username)`. */
  principal: Principal;
  /** Streams to draw on and read keys from; default the process's. */
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/**
 * Shows pending approvals until the user quits. Keys need a terminal: without one
 * this throws an Error that says how to decide approvals instead.
 * @example const who = osUserPrincipal(userInfo().username); if (who.ok) await runTui({ projectState, principal: who.value })
 */
export async function runTui({ projectState, principal, stdin = process.stdin, stdout = process.stdout }: RunTuiOptions): Promise<void> {
  if (!stdin.isTTY) {
    throw new Error('the approvals panel reads keys from a terminal, but stdin is not one; run `gatehouse tui` in an interactive terminal');
  }
  const queue = new ApprovalQueue(projectState);
  // Nothing here logs, so there is no console output to re-route above the panel; and
  // patching needs `console.Console`, which some hosts (test runners) replace.
  const app = render(<ApprovalsPanel queue={queue} principal={principal} />, { stdin, stdout, patchConsole: false });
  await app.waitUntilExit();
}
