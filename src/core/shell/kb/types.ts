// The shape of the read-only knowledge base: per CLI, which subcommands only read, which flags
// turn a read into a write, a program run or a credential print. Data only; interpret.ts reads it.

/** A check written as code, named by an entry: scripts (sed, awk) and modes (tar) that flags alone cannot tell. */
export type ScriptCheck = 'sed' | 'awk' | 'tar';

/** One subcommand (or the bare program) and what makes it safe or not. */
export interface KbEntry {
  /**
   * The subcommand words, space-separated, matched against the leading positional arguments:
   * `a|b` alternatives, `x-*` a prefix, `*` any one word, `**` any run of the tool's `groups`.
   * `, ` separates alternatives of different lengths (`ps, system df`). Empty: the program itself, with no subcommand.
   */
  path: string;
  /** approve: only reads (when its flags pass); ask: needs a person, always (credentials, code, writes). */
  class: 'approve' | 'ask';
  /** Why it asks (for `ask`), or what it reads (for `approve`). */
  why: string;
  /** `any`: every flag of this subcommand only reads (say so per entry); else the flags known to be read-only. */
  flags?: 'any' | readonly string[];
  /** Read-only flags that take a value (`-n NS`, `--format=X`). */
  values?: readonly string[];
  /** Flags (or `--flag=value` prefixes) that make it ask even when `flags` is `any`, with the reason. */
  unsafe?: Readonly<Record<string, string>>;
  /** A subcommand word or positional argument matching this makes it ask (`kubectl get secret`). */
  askPositional?: { match: RegExp; why: string };
  /** Most positional arguments after the path (`git tag -l` lists; `git tag NAME` creates). */
  maxPositionals?: number;
  /** More positionals than `maxPositionals` are fine only with one of these flags (`git tag -l PATTERN`). */
  positionalsWith?: readonly string[];
  /** One of these flags must be given, or it writes (`black --check`, `rustfmt --check`). */
  requires?: readonly string[];
  /** A named code check on the arguments after the path. */
  check?: ScriptCheck;
}

/** One tool family: the programs it covers, their global flags and entries. */
export interface ToolKb {
  /** The family's name, shown in the reason (`kubectl`). */
  family: string;
  /** Program names (`docker`, `podman`). */
  programs: readonly string[];
  /** Flags accepted before and between subcommand words, boolean and with a value. */
  globals?: { flags?: readonly string[]; values?: readonly string[] };
  /** Flags unsafe wherever they appear, with the reason. */
  unsafe?: Readonly<Record<string, string>>;
  /** Words `**` may match (gcloud's and az's command groups). */
  groups?: readonly string[];
  /** Options are whole words after one dash (`openssl x509 -noout`, `find -name`): never split into letters. */
  longSingleDash?: boolean;
  /** Checked in order; every matching `ask` entry is found before any `approve` entry counts. */
  entries: readonly KbEntry[];
}
