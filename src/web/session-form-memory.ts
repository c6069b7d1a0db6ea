// Remembers the new-session form across reloads in localStorage (mode, agent, command line,
// folder, allowlist, checks, sandbox), never a secret: a command line that carries one is not kept.
import { carriesSecret } from '../core/redact-argv.js';
import { splitCommandLine } from './format.js';
import type { SandboxChoice, SessionFields } from './new-session-form.js';

/** One key per browser profile and origin; versioned so a later shape can ignore this one. */
export const FORM_STORAGE_KEY = 'gatehouse.new-session.v1';

/** What is stored: the fields, with the command line emptied when it carries a secret. */
function storableFields(f: SessionFields): SessionFields {
  // An unclosed quote still hides nothing: judge it word by word.
  const argv = splitCommandLine(f.commandLine.trim()) ?? f.commandLine.trim().split(/\s+/);
  return { ...f, commandLine: carriesSecret(argv) ? '' : f.commandLine };
}

const SANDBOX_CHOICES: readonly SandboxChoice[] = ['off', 'host', 'none'];

/** A stored or submitted sandbox choice as one of ours; anything else reads as `off`, which the form shows. */
export function sandboxChoice(v: unknown): SandboxChoice {
  return SANDBOX_CHOICES.find((c) => c === v) ?? 'off';
}

/** Saves the form; a full or disabled storage only means the form is not remembered. */
export function rememberFields(storage: Storage, f: SessionFields): void {
  try {
    storage.setItem(FORM_STORAGE_KEY, JSON.stringify(storableFields(f)));
  } catch {
    // Private mode or a full quota: nothing to do, the form works without memory.
  }
}

/** The saved form, or null when there is none (or it is not ours to read). */
export function recallFields(storage: Storage): SessionFields | null {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(FORM_STORAGE_KEY) ?? 'null');
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  const text = (k: string): string => (typeof r[k] === 'string' ? r[k] : '');
  return {
    mode: r.mode === 'agent' ? 'agent' : 'command',
    commandLine: text('commandLine'),
    cwd: text('cwd'),
    agent: text('agent'),
    allow: text('allow'),
    require: text('require'),
    sandbox: sandboxChoice(r.sandbox),
  };
}
