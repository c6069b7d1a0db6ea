// The detail an approval card shows: the real edit as a diff against the file as it is now,
// a shell call's context, or the input as JSON; masked, made safe and capped.
import { describe, expect, it } from 'vitest';
import { callDetail, MAX_DETAIL_BYTES, type DetailFacts } from '../../../src/core/approvals/detail.js';

const base = { cwd: '/w', why: 'Approvals are interactive.', rule: 'approvals.interactive is on' };

function facts(f: Partial<DetailFacts> & Pick<DetailFacts, 'view'>): DetailFacts {
  return { tool: 'Edit', input: {}, current: null, ...base, ...f };
}

describe('callDetail', () => {
  it('shows an Edit as the diff it makes to the file as it is now', () => {
    const current = { kind: 'text' as const, text: 'const a = 1;\nconst b = 2;\nconst c = 3;\n' };
    const d = callDetail(facts({ view: { kind: 'edit', path: 'src/x.ts', changes: [{ old: 'const b = 2;', new: 'const b = 20;' }], list: false, all: false, cell: false, mode: null }, current }));
    expect(d).toEqual({
      kind: 'diff',
      files: [{ path: 'src/x.ts', diff: '@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n', added: 1, removed: 1, note: null }],
      truncated: false,
    });
  });

  it('applies a MultiEdit in order, and replace_all everywhere', () => {
    const current = { kind: 'text' as const, text: 'x\ny\nx\n' };
    const multi = callDetail(
      facts({
        view: {
          kind: 'edit',
          path: 'f',
          changes: [
            { old: 'y', new: 'Y' },
            { old: 'Y', new: 'Z' },
          ],
          list: true,
          all: false,
          cell: false,
          mode: null,
        },
        current,
      }),
    );
    expect(multi.kind === 'diff' && multi.files[0]?.diff).toBe('@@ -1,3 +1,3 @@\n x\n-y\n+Z\n x\n');
    const all = callDetail(facts({ view: { kind: 'edit', path: 'f', changes: [{ old: 'x', new: 'w' }], list: false, all: true, cell: false, mode: null }, current }));
    expect(all.kind === 'diff' && all.files[0]?.added).toBe(2);
  });

  it('says when the text to replace is not in the file, and shows the edit on its own', () => {
    const d = callDetail(
      facts({ view: { kind: 'edit', path: 'f', changes: [{ old: 'gone', new: 'new' }], list: false, all: false, cell: false, mode: null }, current: { kind: 'text', text: 'other\n' } }),
    );
    expect(d.kind === 'diff' && d.files[0]).toMatchObject({ diff: '@@ -1,1 +1,1 @@\n-gone\n+new\n', note: expect.stringContaining('would fail') });
  });

  it('shows a Write of a new file as all added, and names a file it could not read', () => {
    const created = callDetail(facts({ tool: 'Write', view: { kind: 'write', path: 'n.txt', content: 'a\nb\n' }, current: { kind: 'missing' } }));
    expect(created.kind === 'diff' && created.files[0]).toMatchObject({ added: 2, removed: 0, note: 'a new file' });
    const link = callDetail(facts({ tool: 'Write', view: { kind: 'write', path: 'l', content: 'a\n' }, current: { kind: 'unreadable', why: 'it is a symbolic link' } }));
    expect(link.kind === 'diff' && link.files[0]?.note).toContain('it is a symbolic link');
  });

  it('masks credential shapes and makes control characters visible in the diff', () => {
    const d = callDetail(facts({ tool: 'Write', view: { kind: 'write', path: 'e', content: 'TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ\n\u001b[2Jclear\n' }, current: { kind: 'missing' } }));
    const diff = d.kind === 'diff' ? (d.files[0]?.diff ?? '') : '';
    expect(diff).toContain('ghp_***');
    expect(diff).not.toContain('ghp_0123');
    expect(diff).not.toContain('\u001b');
    expect(diff).toContain('<U+001B>');
  });

  it('caps a huge diff at a line end and says it did', () => {
    const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const d = callDetail(facts({ tool: 'Write', view: { kind: 'write', path: 'big', content }, current: { kind: 'missing' } }));
    if (d.kind !== 'diff') throw new Error('not a diff');
    expect(d.truncated).toBe(true);
    expect(Buffer.byteLength(d.files[0]!.diff)).toBeLessThanOrEqual(MAX_DETAIL_BYTES);
    expect(d.files[0]!.diff.endsWith('\n')).toBe(true);
    expect(d.files[0]!.added).toBe(20_000);
  });

  it('gives a shell call its whole command, the agent description, the folder, and why it is asked', () => {
    const d = callDetail(
      facts({
        tool: 'Bash',
        input: { command: 'curl -H "Authorization: Bearer abc123" https://x', description: 'Fetch the page' },
        view: { kind: 'shell', command: 'curl -H "Authorization: Bearer abc123" https://x' },
        cwd: '/w/sub',
        why: 'curl can send data.',
        rule: 'the shell classifier asks about this command',
      }),
    );
    expect(d).toEqual({
      kind: 'shell',
      command: 'curl -H "Authorization: Bearer ***" https://x',
      description: 'Fetch the page',
      cwd: '/w/sub',
      why: 'curl can send data.',
      rule: 'the shell classifier asks about this command',
    });
  });

  it('shows any other tool input as formatted JSON, secret-named arguments masked', () => {
    const d = callDetail(facts({ tool: 'mcp__db__query', input: { sql: 'select 1', api_key: 'k-123' }, view: { kind: 'other', lead: null, args: {} } }));
    expect(d).toEqual({ kind: 'input', json: '{\n  "sql": "select 1",\n  "api_key": "***"\n}', truncated: false });
  });
});
