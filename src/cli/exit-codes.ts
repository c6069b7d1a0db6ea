// Exit codes of every `gatehouse` command, in one place (documented in README.md).

/** Process exit codes. */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** It ran but the outcome is a failure: a check failed, no such session, a file it must not break is corrupt. */
  failure: 1,
  /** The command line was wrong: unknown flag, missing or invalid argument. */
  usage: 2,
  /** The team store named by `store:` (or GATEHOUSE_STORE, or --store) cannot be used, so nothing was started (sysexits' EX_UNAVAILABLE). */
  storeUnavailable: 69,
} as const;

/** An error the user caused; the CLI prints the message and exits with `code`. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly code: number = EXIT.failure,
  ) {
    super(message);
  }
}
