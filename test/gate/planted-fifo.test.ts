// The agent, outside a sandbox, can put a FIFO where Gatehouse keeps a file it reads or appends to
// on every hook call. Opening a FIFO blocks until someone opens its other end: a hook that did so
// would hang until the agent's own hook timeout, which lets the call through. Each hook must
// answer at once, and a refusal must still be a refusal.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startGitSession } from '../support/git-session.js';
import { tempDir } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

let root: string;
let state: string;
let id: string;

const write = (file: string) =>
  runRenderedHook(
    root,
    'PreToolUse',
    { hook_event_name: 'PreToolUse', cwd: root, session_id: 'x', tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'x' } },
    { timeoutMs: 15_000 },
  );
const stop = () => runRenderedHook(root, 'Stop', { hook_event_name: 'Stop', cwd: root, session_id: 'x', last_assistant_message: 'done', stop_hook_active: false }, { timeoutMs: 15_000 });
const plant = (rel: string): void => {
  const file = join(state, rel);
  rmSync(file, { force: true });
  execFileSync('mkfifo', [file]);
};

beforeEach(async () => {
  root = join(tempDir(), 'repo');
  state = join(root, '..', 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'x.ts'), 'export {};\n');
  id = await startGitSession(root, state);
  // The first refusal makes the session's log, turn state and the project's signing key.
  expect(write('package.json').status).toBe(2);
});

describe('a FIFO planted where the hook reads or writes', () => {
  it('in place of the policy: every call is refused as tampering, at once', () => {
    plant(join('sessions', id, 'policy.json'));
    for (const r of [write('src/a.ts'), write('package.json'), stop()]) {
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('policy.json) cannot be read as the regular file');
    }
  });

  for (const rel of ['turn-state.json', 'turn-state.lock', 'gate.log', 'baseline.json', 'baseline-text.json', '../../keys/ed25519.key.pem', '../../audit/log.lock']) {
    it(`in place of ${rel.split('/').pop()}: an allowed write still passes and a refused one is still refused, at once`, () => {
      plant(join('sessions', id, rel));
      const allowed = write('src/a.ts');
      expect(allowed.status).toBe(0);
      const refused = write('package.json');
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('package.json');
      // A Stop with a changed control file outside the scope reads the baseline, its texts and the key.
      execFileSync('git', ['config', 'core.editor', 'planted'], { cwd: root });
      const s = stop();
      expect(s.status).toBe(2);
      expect(s.stderr).toMatch(/\.git\/config|baseline\.json\) cannot be read/);
    });
  }

  // Files the Stop's scope check and its extension hooks read from the worktree and git's config, which the agent controls.
  const worktreeFifos: [string, () => void, number, string][] = [
    // Inside the allowlist: the Stop passes.
    ['a .gitignore', () => execFileSync('mkfifo', [join(root, 'src', '.gitignore')]), 0, ''],
    [
      'the core.excludesFile git config names',
      () => {
        execFileSync('mkfifo', [join(root, '..', 'excludes')]);
        execFileSync('git', ['config', 'core.excludesFile', join(root, '..', 'excludes')], { cwd: root });
      },
      2,
      'excludesFile',
    ],
    [
      '.gatehouse/hooks.json',
      () => {
        mkdirSync(join(root, '.gatehouse'), { recursive: true });
        execFileSync('mkfifo', [join(root, '.gatehouse', 'hooks.json')]);
      },
      2,
      'created: .gatehouse/hooks.json',
    ],
  ];
  for (const [what, plantIt, status, says] of worktreeFifos) {
    it(`in place of ${what}: the Stop answers at once, as it would without the FIFO`, () => {
      plantIt();
      const s = stop();
      expect(s.status).toBe(status);
      expect(s.stderr).toContain(says);
    });
  }
});
