import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeHooks, renderHooks } from '../../../src/adapters/shaped/render.js';
import type { HookEntry, RenderRecord } from '../../../src/adapters/shaped/render.js';
import { insertValue, removeValue } from '../../../src/adapters/shaped/settings-json.js';

const ENTRIES: HookEntry[] = [
  { event: 'PreToolUse', matcher: 'Write|Edit', command: 'gatehouse hook pre-tool --session s1', timeout: 30 },
  { event: 'Stop', command: 'gatehouse hook stop --session s1', timeout: 600 },
];

const OUR_GROUPS = {
  PreToolUse: { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'gatehouse hook pre-tool --session s1', timeout: 30 }] },
  Stop: { hooks: [{ type: 'command', command: 'gatehouse hook stop --session s1', timeout: 600 }] },
};

/** Existing settings files, each with a `"model": "sonnet"` the "user" later edits. */
const FIXTURES: Record<string, string> = {
  'two-space': [
    '{',
    '  "model": "sonnet",',
    '  "permissions": { "allow": ["Bash(npm test)"] },',
    '  "hooks": {',
    '    "PreToolUse": [',
    '      {',
    '        "matcher": "Write|Edit",',
    '        "hooks": [{"type": "command", "command": "my-lint", "timeout": 5}]',
    '      }',
    '    ],',
    '    "Stop": [',
    '      { "hooks": [ { "type": "command", "command": "my-notify" } ] }',
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n'),
  'tab-indented CRLF': '{\r\n\t"model": "sonnet",\r\n\t"hooks": {\r\n\t\t"Stop": [\r\n\t\t\t{ "hooks": [ { "type": "command", "command": "my-notify" } ] }\r\n\t\t]\r\n\t}\r\n}',
  'one-line oddly spaced': '{ "model" : "sonnet" ,  "hooks" : { "PreToolUse" : [ {"matcher":"Bash","hooks":[{"type":"command","command":"my-guard"}]} ] } }',
  'no hooks key': '{\n    "model": "sonnet",\n    "env": {"A": "1"}\n}\n',
};

const CORRUPT: Record<string, string> = {
  'truncated JSON': '{\n  "hooks": {\n    "Stop": [\n',
  'a comment': '{\n  // mine\n  "model": "sonnet"\n}\n',
  'a trailing comma': '{\n  "model": "sonnet",\n}\n',
  'a byte-order mark': '\uFEFF{"model": "sonnet"}',
  'an array root': '[{"hooks": {}}]\n',
  'a null root': 'null',
  '"hooks" as a string': '{"hooks": "none"}',
  '"hooks.PreToolUse" as an object': '{"hooks": {"PreToolUse": {"matcher": "Bash"}}}',
  'a duplicate "hooks" key': '{"hooks": {}, "hooks": {"Stop": []}}',
  'empty text': '',
};

let base: string;
let worktree: string;
let claudeDir: string;
let file: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'gatehouse-render-'));
  worktree = join(base, 'wt');
  mkdirSync(worktree);
  claudeDir = join(worktree, '.claude');
  file = join(claudeDir, 'settings.local.json');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function seed(text: string): void {
  mkdirSync(claudeDir, { recursive: true });
  writeFileSync(file, text);
}

function render(entries: HookEntry[] = ENTRIES): RenderRecord {
  const r = renderHooks(file, entries);
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}

function remove(record: RenderRecord): { removed: number; deletedFile: boolean } {
  const r = removeHooks(record);
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}

const read = () => readFileSync(file, 'utf8');
const parse = (text: string) => JSON.parse(text) as Record<string, unknown>;
/** The "user" changes a key we never touch. */
const userEdit = (text: string) => text.replace('"sonnet"', '"opus"');

/** True when `b` is `a` with text inserted only: every byte of `a` survives, in order. */
function onlyInserted(a: string, b: string): boolean {
  let i = 0;
  for (const ch of b) if (i < a.length && ch === a[i]) i++;
  return i === a.length;
}

/** The settings we expect after render: the original with our groups appended per event. */
function withOurGroups(original: Record<string, unknown>): Record<string, unknown> {
  const hooks = { ...((original['hooks'] as Record<string, unknown[]> | undefined) ?? {}) };
  hooks['PreToolUse'] = [...(hooks['PreToolUse'] ?? []), OUR_GROUPS.PreToolUse];
  hooks['Stop'] = [...(hooks['Stop'] ?? []), OUR_GROUPS.Stop];
  return { ...original, hooks };
}

describe('renderHooks', () => {
  it('creates .claude and a two-space settings file with a trailing newline when neither exists', () => {
    const record = render();
    expect(read()).toBe(JSON.stringify({ hooks: { PreToolUse: [OUR_GROUPS.PreToolUse], Stop: [OUR_GROUPS.Stop] } }, null, 2) + '\n');
    expect(record).toEqual({ file, createdFile: true, createdDir: true, original: null, rendered: read(), entries: ENTRIES });
  });

  it('writes no matcher key for an entry without one (Stop)', () => {
    render();
    const stop = (parse(read())['hooks'] as Record<string, Record<string, unknown>[]>)['Stop']?.[0];
    expect(stop && Object.keys(stop)).toEqual(['hooks']);
  });

  it('reports an existing .claude folder as not created', () => {
    mkdirSync(claudeDir);
    expect(render()).toMatchObject({ createdFile: true, createdDir: false });
  });

  it('merges into "{}" as pretty JSON', () => {
    seed('{}');
    const record = render();
    expect(parse(read())).toEqual(withOurGroups({}));
    expect(read()).toBe(JSON.stringify(withOurGroups({}), null, 2));
    expect(record).toMatchObject({ createdFile: false, createdDir: false, original: '{}' });
  });

  it.each(Object.entries(FIXTURES))('merges into a %s file by insertion only, keeping every original byte', (_name, text) => {
    seed(text);
    const record = render();
    expect(record.original).toBe(text);
    expect(record.rendered).toBe(read());
    expect(onlyInserted(text, read())).toBe(true);
    expect(parse(read())).toEqual(withOurGroups(parse(text)));
  });

  it('copies tab indentation and CRLF line endings into the lines it adds', () => {
    seed(FIXTURES['tab-indented CRLF'] as string);
    render();
    expect(read().replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    expect(read()).not.toMatch(/\n +/);
    expect(read()).toContain('\r\n\t\t\t{\r\n\t\t\t\t"hooks": [\r\n');
  });

  it('keeps a one-line file on one line', () => {
    seed(FIXTURES['one-line oddly spaced'] as string);
    render();
    expect(read()).not.toContain('\n');
  });

  it.each(Object.entries(CORRUPT))('refuses a file with %s, naming the file, and leaves it byte-for-byte', (_name, text) => {
    seed(text);
    const r = renderHooks(file, ENTRIES);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(new RegExp(`${file.replaceAll('.', '\\.')}: .+fix the file and run again`));
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(claudeDir)).toEqual(['settings.local.json']);
  });

  it('fails without creating anything when the worktree folder does not exist', () => {
    const r = renderHooks(join(base, 'missing', '.claude', 'settings.local.json'), ENTRIES);
    expect(r.ok).toBe(false);
    expect(existsSync(join(base, 'missing'))).toBe(false);
  });

  it('writes through a symlinked settings file and keeps the link', () => {
    const real = join(base, 'shared-settings.json');
    writeFileSync(real, '{}\n');
    mkdirSync(claudeDir);
    symlinkSync(real, file);
    const record = render();
    expect(record.file).toBe(real);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    remove(record);
    expect(readFileSync(real, 'utf8')).toBe('{}\n');
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });
});

describe('removeHooks', () => {
  it('deletes the file and the .claude folder it created when the file is as render left it', () => {
    const record = render();
    expect(remove(record)).toEqual({ removed: 2, deletedFile: true });
    expect(existsSync(claudeDir)).toBe(false);
    expect(readdirSync(worktree)).toEqual([]);
  });

  it.each(Object.entries({ '{}': '{}', ...FIXTURES }))('restores a %s file byte-identical', (_name, text) => {
    seed(text);
    const record = render();
    expect(remove(record)).toEqual({ removed: 2, deletedFile: false });
    expect(read()).toBe(text);
  });

  it.each(Object.entries(FIXTURES))("keeps the user's later edit to a %s file and removes only our hooks", (_name, text) => {
    seed(text);
    const record = render();
    writeFileSync(file, userEdit(read()));
    expect(remove(record)).toEqual({ removed: 2, deletedFile: false });
    expect(read()).toBe(userEdit(text));
  });

  it('keeps permissions Claude Code wrote into the file it created and drops our hooks and the hooks key', () => {
    const record = render();
    const rewritten = { ...parse(read()), permissions: { allow: ['Bash(ls)'] } };
    writeFileSync(file, JSON.stringify(rewritten, null, 2));
    expect(remove(record)).toEqual({ removed: 2, deletedFile: false });
    expect(read()).toBe(JSON.stringify({ permissions: { allow: ['Bash(ls)'] } }, null, 2));
  });

  it('deletes the file it created when only our hooks are left, even after a reformat', () => {
    const record = render();
    writeFileSync(file, JSON.stringify(parse(read())));
    expect(remove(record)).toEqual({ removed: 2, deletedFile: true });
    expect(existsSync(claudeDir)).toBe(false);
  });

  it('keeps a .claude folder it created once the user has put another file in it', () => {
    const record = render();
    writeFileSync(join(claudeDir, 'notes.md'), 'mine');
    expect(remove(record)).toEqual({ removed: 2, deletedFile: true });
    expect(readdirSync(claudeDir)).toEqual(['notes.md']);
  });

  it("keeps a hook the user added to our matcher group and the user's own group with the same matcher", () => {
    const text = FIXTURES['two-space'] as string;
    seed(text);
    const record = render();
    const theirs = { type: 'command', command: 'their-late-hook' };
    const edited = parse(read()) as { hooks: Record<string, { hooks: unknown[] }[]> };
    edited.hooks['PreToolUse']?.at(-1)?.hooks.push(theirs);
    writeFileSync(file, JSON.stringify(edited, null, 2) + '\n');
    expect(remove(record)).toEqual({ removed: 2, deletedFile: false });
    const expected = parse(text) as { hooks: Record<string, unknown[]> };
    expected.hooks['PreToolUse']?.push({ matcher: 'Write|Edit', hooks: [theirs] });
    expect(parse(read())).toEqual(expected);
  });

  it('keeps an event key that existed before render even when it ends up empty', () => {
    const text = '{\n  "model": "sonnet",\n  "hooks": {\n    "Stop": []\n  }\n}\n';
    seed(text);
    const record = render();
    writeFileSync(file, userEdit(read()));
    remove(record);
    expect(read()).toBe(userEdit(text));
  });

  it('keeps a hook the original already had with the same command as ours', () => {
    const text = '{"model": "sonnet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "gatehouse hook stop --session s1"}]}]}}';
    seed(text);
    const record = render();
    writeFileSync(file, userEdit(read()));
    expect(remove(record)).toEqual({ removed: 2, deletedFile: false });
    expect(read()).toBe(userEdit(text));
    expect(remove(record)).toEqual({ removed: 0, deletedFile: false });
  });

  it('is idempotent: a second removal writes nothing and reports 0, whichever path the first took', () => {
    const restored = (() => {
      seed(FIXTURES['two-space'] as string);
      return render();
    })();
    remove(restored);
    const after = statSync(file).mtimeMs;
    expect(remove(restored)).toEqual({ removed: 0, deletedFile: false });
    expect(read()).toBe(FIXTURES['two-space']);
    expect(statSync(file).mtimeMs).toBe(after);

    writeFileSync(file, userEdit(read()));
    const structural = render();
    writeFileSync(file, read().replace('"opus"', '"haiku"'));
    remove(structural);
    const left = read();
    expect(remove(structural)).toEqual({ removed: 0, deletedFile: false });
    expect(read()).toBe(left);

    rmSync(claudeDir, { recursive: true });
    const created = render();
    remove(created);
    expect(remove(created)).toEqual({ removed: 0, deletedFile: false });
    expect(existsSync(claudeDir)).toBe(false);
  });

  it('returns ok with 0 when a file it modified is gone, and does not recreate it', () => {
    seed('{}');
    const record = render();
    rmSync(file);
    expect(remove(record)).toEqual({ removed: 0, deletedFile: false });
    expect(existsSync(file)).toBe(false);
  });

  it.each(Object.entries(CORRUPT))('refuses a file that now has %s and leaves it byte-for-byte', (_name, text) => {
    seed('{}');
    const record = render();
    writeFileSync(file, text);
    const r = removeHooks(record);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(claudeDir)).toEqual(['settings.local.json']);
  });

  it('keeps the file mode through render, byte-identical restore and structural removal', () => {
    seed(FIXTURES['two-space'] as string);
    chmodSync(file, 0o600);
    const first = render();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    remove(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = render();
    writeFileSync(file, userEdit(read()));
    remove(second);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('settings-json edits', () => {
  it('removes the last element of a one-line array without eating its neighbour', () => {
    expect(removeValue('[1, 2]', [1])).toBe('[1]');
    expect(removeValue('{"a": [1, 2, 3]}', ['a', 1])).toBe('{"a": [1, 3]}');
  });

  it('removes the first property and keeps the next one on its own line, CRLF intact', () => {
    expect(removeValue('{\r\n  "a": 1,\r\n  "b": 2\r\n}', ['a'])).toBe('{\r\n  "b": 2\r\n}');
    expect(removeValue('{\r\n  "a": [\r\n    1,\r\n    2\r\n  ]\r\n}', ['a', 1])).toBe('{\r\n  "a": [\r\n    1\r\n  ]\r\n}');
  });

  it('opens an empty array onto new lines in a multi-line file, at its own indentation', () => {
    expect(insertValue('{\n    "a": []\n}', ['a'], { b: 1 })).toBe('{\n    "a": [\n        {\n            "b": 1\n        }\n    ]\n}');
  });
});
