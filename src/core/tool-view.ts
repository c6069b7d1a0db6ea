// How a tool call is shown to the person asked to approve it, by the kind of tool. Each adapter
// declares, per tool, which input keys hold what matters (the command, the path, the old and new
// text, the URL); resolved against one call's input, that is the view a summary is made from.
import { isRecord } from './is-record.js';

/**
 * Which input keys of a tool hold what its summary shows, declared per tool by its adapter. An
 * `edit` names its old and new text keys, and `edits` when the changes come as a list
 * (MultiEdit), `all` for a replace-every-occurrence flag, `mode` and `unit: 'cell'` for a
 * notebook. `read` and `fetch` name the key shown first (the path, the pattern, the URL).
 * A `patch` is read by its adapter (Codex's patch format), so it has no keys here.
 */
export type ViewSpec =
  | { kind: 'shell'; command: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; new: string; old?: string; edits?: string; all?: string; mode?: string; unit?: 'cell' }
  | { kind: 'read' | 'fetch'; lead: string }
  | { kind: 'other' };

/** One file a patch touches, as its adapter read it. */
interface PatchOp {
  op: 'add' | 'update' | 'delete';
  path: string;
  /** Set when an update also renames the file. */
  to?: string;
}

/** A call's view: the values its summary shows, taken from its input. */
export type CallView =
  | { kind: 'shell'; command: string }
  | { kind: 'write'; path: string | null; content: string }
  | { kind: 'edit'; path: string | null; changes: { old: string; new: string }[]; list: boolean; all: boolean; cell: boolean; mode: string | null }
  | { kind: 'patch'; ops: PatchOp[] }
  | { kind: 'read' | 'fetch' | 'other'; lead: string | null; args: Record<string, unknown> };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const pathIn = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The view of one call from its tool's spec; a call without a spec, or whose command key holds no
 * text, shows all its arguments.
 * @example resolveView({ kind: 'shell', command: 'command' }, { command: 'ls' }) // { kind: 'shell', command: 'ls' }
 */
export function resolveView(spec: ViewSpec | undefined, input: unknown): CallView {
  // An input that is not an object (no agent sends one) is shown as the one argument it is.
  if (!isRecord(input)) return { kind: 'other', lead: null, args: input === undefined ? {} : { input } };
  const rec = input;
  switch (spec?.kind) {
    case 'shell':
      return typeof rec[spec.command] === 'string' ? { kind: 'shell', command: rec[spec.command] as string } : { kind: 'other', lead: null, args: rec };
    case 'write':
      return { kind: 'write', path: pathIn(rec[spec.path]), content: str(rec[spec.content]) };
    case 'edit': {
      const old = spec.old;
      const list = spec.edits !== undefined;
      const items = list ? (Array.isArray(rec[spec.edits!]) ? (rec[spec.edits!] as unknown[]) : []) : [rec];
      const changes = items.map((e) => (isRecord(e) ? { old: old === undefined ? '' : str(e[old]), new: str(e[spec.new]) } : { old: '', new: '' }));
      return {
        kind: 'edit',
        path: pathIn(rec[spec.path]),
        changes,
        list,
        all: spec.all !== undefined && rec[spec.all] === true,
        cell: spec.unit === 'cell',
        mode: spec.mode !== undefined && typeof rec[spec.mode] === 'string' ? (rec[spec.mode] as string) : null,
      };
    }
    case 'read':
    case 'fetch':
      return { kind: spec.kind, lead: typeof rec[spec.lead] === 'string' ? spec.lead : null, args: rec };
    default:
      return { kind: 'other', lead: null, args: rec };
  }
}
