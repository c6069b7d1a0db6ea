// The "new session" dialog: a command line, or an agent with its allowlist and required
// checks, turned into `pty.spawn` params; remembered across reloads, and it asks before a
// known agent starts without its gate. The spawn itself is the page's job.
import type { AgentPrograms, UngatedWarning } from './agent-guard.js';
import { fetchAgentPrograms, ungatedWarning } from './agent-guard.js';
import { byId, h } from './dom.js';
import { lines, splitCommandLine } from './format.js';
import { recallFields, rememberFields, sandboxChoice } from './session-form-memory.js';
import type { SpawnParams } from './wire.js';

/** The sandbox choice: none, or bubblewrap with the machine's network or none at all. */
export type SandboxChoice = 'off' | 'host' | 'none';

/** What the form holds, as plain text. */
export interface SessionFields {
  mode: 'command' | 'agent';
  commandLine: string;
  cwd: string;
  agent: string;
  allow: string;
  require: string;
  sandbox: SandboxChoice;
}

/**
 * Turns the form into `pty.spawn` params sized to `geometry`, or says what to fix.
 * @example buildSpawnParams({ mode: 'command', commandLine: 'bash -l', cwd: '', agent: '', allow: '', require: '', sandbox: 'off' }, { cols: 80, rows: 24 })
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
    if (agent === '') return { ok: false, reason: 'Name the agent to run (e.g. claude): the field lists the agents this server can gate.' };
    params.session = { agent, allow: lines(f.allow), require: lines(f.require) };
    if (f.sandbox !== 'off') params.session.sandbox = { network: f.sandbox };
  }
  return { ok: true, params };
}

/** The submit button's label, and its label once a warning asks for confirmation. */
const START = 'Start';
const START_UNGATED = 'Start ungated';

/**
 * Drives the `<dialog id="new-dialog">` of index.html.
 * @example const form = new NewSessionForm(spawn, () => terminal.geometry(), () => terminal.focus()); form.open()
 */
export class NewSessionForm {
  readonly #dialog = byId('new-dialog', HTMLDialogElement);
  readonly #form = byId('new-form', HTMLFormElement);
  readonly #error = byId('new-error', HTMLElement);
  readonly #warning = byId('new-warning', HTMLElement);
  readonly #gate = byId('new-gate', HTMLButtonElement);
  readonly #submit = byId('new-submit', HTMLButtonElement);
  readonly #spawn: (p: SpawnParams) => Promise<void>;
  readonly #geometry: () => { cols: number; rows: number };
  readonly #started: () => void;
  #agents: AgentPrograms[] = [];
  /** The warning shown for the form as it is now; a second Start confirms it. Any edit clears it. */
  #shown: UngatedWarning | null = null;

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
    this.#form.addEventListener('input', () => this.#edited());
    this.#form.addEventListener('change', () => this.#edited());
    byId('new-cancel', HTMLButtonElement).addEventListener('click', () => this.#dialog.close());
    this.#gate.addEventListener('click', () => this.#gateIt());
    const saved = recallFields(localStorage);
    if (saved !== null) this.#setFields(saved);
    this.#syncMode();
    void fetchAgentPrograms().then((agents) => {
      this.#agents = agents;
      byId('known-agents', HTMLDataListElement).replaceChildren(...agents.map((a) => h('option', { value: a.agent })));
    });
  }

  /** Opens the dialog with the command line focused and selected, so typing replaces the last one. */
  open(): void {
    this.#error.textContent = '';
    this.#clearWarning();
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
      sandbox: sandboxChoice(text('sandbox')),
    };
  }

  #setFields(f: SessionFields): void {
    for (const radio of this.#form.querySelectorAll<HTMLInputElement>('input[name="mode"]')) radio.checked = radio.value === f.mode;
    byId('new-command', HTMLInputElement).value = f.commandLine;
    byId('new-cwd', HTMLInputElement).value = f.cwd;
    byId('new-agent', HTMLInputElement).value = f.agent;
    byId('new-allow', HTMLTextAreaElement).value = f.allow;
    byId('new-require', HTMLTextAreaElement).value = f.require;
    byId('new-sandbox', HTMLSelectElement).value = f.sandbox;
  }

  #syncMode(): void {
    const agent = this.#fields().mode === 'agent';
    for (const el of this.#form.querySelectorAll<HTMLElement>('.when-agent')) el.hidden = !agent;
    byId('new-command', HTMLInputElement).placeholder = agent ? "empty: the agent's own CLI" : 'empty: your login shell';
  }

  /** Remembers the form as it is now (secrets left out) and withdraws a confirmation given for how it was. */
  #edited(): void {
    rememberFields(localStorage, this.#fields());
    this.#clearWarning();
  }

  #clearWarning(): void {
    this.#shown = null;
    this.#warning.textContent = '';
    this.#warning.hidden = true;
    this.#gate.hidden = true;
    this.#submit.textContent = START;
  }

  /** "Gate it": the same command line, as an agent session of the agent it starts. */
  #gateIt(): void {
    const agent = this.#shown?.agent;
    if (agent === undefined) return;
    this.#setFields({ ...this.#fields(), mode: 'agent', agent });
    this.#syncMode();
    this.#edited();
    byId('new-allow', HTMLTextAreaElement).focus();
  }

  async #submitForm(): Promise<void> {
    const fields = this.#fields();
    const built = buildSpawnParams(fields, this.#geometry());
    if (!built.ok) {
      this.#error.textContent = built.reason;
      return;
    }
    const warning = ungatedWarning(fields, this.#agents);
    if (warning !== null && this.#shown === null) {
      this.#shown = warning;
      this.#warning.textContent = warning.text;
      this.#warning.hidden = false;
      this.#gate.textContent = `Gate it as ${warning.agent}`;
      this.#gate.hidden = false;
      this.#submit.textContent = START_UNGATED;
      this.#gate.focus();
      return;
    }
    this.#submit.disabled = true;
    this.#error.textContent = '';
    try {
      await this.#spawn(built.params);
      rememberFields(localStorage, fields);
      this.#dialog.close();
      this.#started();
    } catch (err) {
      this.#error.textContent = (err as Error).message;
    } finally {
      this.#submit.disabled = false;
    }
  }
}
