// The "new session" dialog: a command line, or an agent with its allowlist and required
// checks, turned into `pty.spawn` params; the spawn itself is the page's job.
import { byId } from './dom.js';
import { lines, splitCommandLine } from './format.js';
import type { SpawnParams } from './wire.js';

/** What the form holds, as plain text. */
export interface SessionFields {
  mode: 'command' | 'agent';
  commandLine: string;
  cwd: string;
  agent: string;
  allow: string;
  require: string;
}

/** Agent names as the gateway knows them (see src/adapters/); the field also takes others. */
export const KNOWN_AGENTS = ['claude', 'codex', 'gemini', 'copilot', 'qwen', 'opencode', 'cursor'] as const;

/**
 * Turns the form into `pty.spawn` params sized to `geometry`, or says what to fix.
 * @example buildSpawnParams({ mode: 'command', commandLine: 'bash -l', cwd: '', agent: '', allow: '', require: '' }, { cols: 80, rows: 24 })
 * // { ok: true, params: { command: 'bash', args: ['-l'], cols: 80, rows: 24 } }
 */
export function buildSpawnParams(f: SessionFields, geometry: { cols: number; rows: number }): { ok: true; params: SpawnParams } | { ok: false; reason: string } {
  const argv = splitCommandLine(f.commandLine.trim());
  if (argv === null) return { ok: false, reason: 'The command line has an unclosed quote: close it or remove it.' };
  const params: SpawnParams = { cols: geometry.cols, rows: geometry.rows };
  const [command, ...args] = argv;
  if (command !== undefined) {
    params.command = command;
    params.args = args;
  }
  if (f.cwd.trim() !== '') params.cwd = f.cwd.trim();
  if (f.mode === 'agent') {
    const agent = f.agent.trim();
    if (agent === '') return { ok: false, reason: `Name the agent to run (e.g. ${KNOWN_AGENTS.slice(0, 3).join(', ')}).` };
    params.session = { agent, allow: lines(f.allow), require: lines(f.require) };
  }
  return { ok: true, params };
}

/**
 * Drives the `<dialog id="new-dialog">` of index.html.
 * @example const form = new NewSessionForm(spawn, () => terminal.geometry(), () => terminal.focus()); form.open()
 */
export class NewSessionForm {
  readonly #dialog = byId('new-dialog', HTMLDialogElement);
  readonly #form = byId('new-form', HTMLFormElement);
  readonly #error = byId('new-error', HTMLElement);
  readonly #submit = byId('new-submit', HTMLButtonElement);
  readonly #spawn: (p: SpawnParams) => Promise<void>;
  readonly #geometry: () => { cols: number; rows: number };
  readonly #started: () => void;

  /** `started` runs after the dialog closed (closing moves focus back), e.g. to focus the terminal. */
  constructor(spawn: (p: SpawnParams) => Promise<void>, geometry: () => { cols: number; rows: number }, started: () => void) {
    this.#spawn = spawn;
    this.#geometry = geometry;
    this.#started = started;
    this.#form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void this.#submitForm();
    });
    this.#form.addEventListener('change', () => this.#syncMode());
    byId('new-cancel', HTMLButtonElement).addEventListener('click', () => this.#dialog.close());
    this.#syncMode();
  }

  /** Opens the dialog with the command line focused and selected, so typing replaces the last one. */
  open(): void {
    this.#error.textContent = '';
    this.#dialog.showModal();
    const command = byId('new-command', HTMLInputElement);
    command.focus();
    command.select();
  }

  #fields(): SessionFields {
    const data = new FormData(this.#form);
    const text = (name: string): string => {
      const v = data.get(name);
      return typeof v === 'string' ? v : '';
    };
    return {
      mode: text('mode') === 'agent' ? 'agent' : 'command',
      commandLine: text('command'),
      cwd: text('cwd'),
      agent: text('agent'),
      allow: text('allow'),
      require: text('require'),
    };
  }

  #syncMode(): void {
    const agent = this.#fields().mode === 'agent';
    for (const el of this.#form.querySelectorAll<HTMLElement>('.when-agent')) el.hidden = !agent;
    byId('new-command', HTMLInputElement).placeholder = agent ? "empty: the agent's own CLI" : 'empty: your login shell';
  }

  async #submitForm(): Promise<void> {
    const built = buildSpawnParams(this.#fields(), this.#geometry());
    if (!built.ok) {
      this.#error.textContent = built.reason;
      return;
    }
    this.#submit.disabled = true;
    this.#error.textContent = '';
    try {
      await this.#spawn(built.params);
      this.#dialog.close();
      this.#started();
    } catch (err) {
      this.#error.textContent = (err as Error).message;
    } finally {
      this.#submit.disabled = false;
    }
  }
}
