import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VerifierChain } from '../../../src/core/verifier-chain.js';
import {
  CONSECUTIVE_VETOES_KEY,
  MAX_CONSECUTIVE_VETOES,
  extensionStopHooksVerifier,
  runExtensionHook,
  type ExtensionStopHook,
  type SessionKeyValueStore,
} from '../../../src/runtime/stop-hooks/extension.js';
import { loadExtensionHooks } from '../../../src/runtime/stop-hooks/extension-config.js';
import { CTX, tempDir } from './support.js';

let t: ReturnType<typeof tempDir>;
let worktree: string;
let configHome: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  t = tempDir('gatehouse-ext-hooks-');
  worktree = join(t.dir, 'wt');
  configHome = join(t.dir, 'config');
  mkdirSync(join(worktree, '.gatehouse'), { recursive: true });
  mkdirSync(join(configHome, 'gatehouse'), { recursive: true });
  // Never read the real user's config.
  env = { ...process.env, HOME: join(t.dir, 'home'), XDG_CONFIG_HOME: configHome };
});
afterEach(() => t.cleanup());

const projectFile = (): string => join(worktree, '.gatehouse', 'hooks.json');
const userFile = (): string => join(configHome, 'gatehouse', 'hooks.json');
const stopHooks = (...commands: string[]): object => ({ hooks: { Stop: [{ hooks: commands.map((command) => ({ type: 'command', command })) }] } });
const hookOf = (command: string, timeout_s = 30): ExtensionStopHook => ({ name: 'test hook', source: 'project', file: projectFile(), command, timeout_s, cwd: worktree });
const signal = (): AbortSignal => new AbortController().signal;

/** A plain in-memory session store, as the runtime would pass in. */
function memoryStore(): SessionKeyValueStore & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return { map, get: (k) => map.get(k), set: (k, v) => map.set(k, v) };
}

describe('loadExtensionHooks', () => {
  it('loads Stop command hooks from the user and the project file, with notes for what it ignores', () => {
    writeFileSync(userFile(), JSON.stringify(stopHooks('echo user')));
    writeFileSync(
      projectFile(),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] }],
          Stop: [
            {
              matcher: '',
              hooks: [
                { type: 'command', command: 'echo project', timeout: 5 },
                { type: 'http', url: 'http://127.0.0.1:1/' },
              ],
            },
          ],
        },
      }),
    );
    const loaded = loadExtensionHooks(worktree, env);
    expect(loaded.problems).toEqual([]);
    expect(loaded.hooks).toEqual([
      { name: 'user hooks.json Stop[0].hooks[0]', source: 'user', file: userFile(), command: 'echo user', timeout_s: 60, cwd: worktree },
      { name: 'project hooks.json Stop[0].hooks[0]', source: 'project', file: projectFile(), command: 'echo project', timeout_s: 5, cwd: worktree },
    ]);
    expect(loaded.notes.join('\n')).toMatch(/ignored the PreToolUse hooks/);
    expect(loaded.notes.join('\n')).toMatch(/only "command" hooks run/);
  });

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset or relative', () => {
    const home = join(t.dir, 'home');
    mkdirSync(join(home, '.config', 'gatehouse'), { recursive: true });
    writeFileSync(join(home, '.config', 'gatehouse', 'hooks.json'), JSON.stringify(stopHooks('echo home')));
    for (const xdg of [undefined, 'relative/config']) {
      const e: NodeJS.ProcessEnv = { HOME: home };
      if (xdg !== undefined) e.XDG_CONFIG_HOME = xdg;
      expect(loadExtensionHooks(worktree, e).hooks.map((h) => h.command)).toEqual(['echo home']);
    }
  });

  it('finds nothing and reports nothing when neither file exists', () => {
    expect(loadExtensionHooks(worktree, env)).toEqual({ hooks: [], problems: [], notes: [] });
  });

  it('skips a malformed file with a problem and still loads the other one', () => {
    writeFileSync(userFile(), '{"hooks": {"Stop": [ ');
    writeFileSync(projectFile(), JSON.stringify(stopHooks('echo project')));
    const loaded = loadExtensionHooks(worktree, env);
    expect(loaded.hooks.map((h) => h.command)).toEqual(['echo project']);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toContain(userFile());
    expect(loaded.problems[0]).toContain('not valid JSON');
  });

  it.each([
    ['no hooks object', { Stop: [] }],
    ['Stop not a list', { hooks: { Stop: { hooks: [] } } }],
    ['a group without hooks', { hooks: { Stop: [{ matcher: '*' }] } }],
    ['a command hook without a command', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo ok' }, { type: 'command' }] }] } }],
    ['a bad timeout', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo ok', timeout: -1 }] }] } }],
  ])('skips the whole file when it has %s', (_what, data) => {
    writeFileSync(projectFile(), JSON.stringify(data));
    const loaded = loadExtensionHooks(worktree, env);
    expect(loaded.hooks).toEqual([]);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toContain('skipped the whole file');
  });
});

describe('runExtensionHook', () => {
  it('blocks on exit 2 with stderr as the reason', async () => {
    const r = await runExtensionHook(hookOf('echo "tests still fail" >&2; exit 2'), CTX, false);
    expect(r).toMatchObject({ outcome: 'block', reason: 'tests still fail', exit_code: 2 });
  });

  it('blocks on JSON decision "block", at top level or in hookSpecificOutput', async () => {
    const top = await runExtensionHook(hookOf(`echo '{"decision": "block", "reason": "add a changelog entry"}'`), CTX, false);
    expect(top).toMatchObject({ outcome: 'block', reason: 'add a changelog entry' });
    const specific = await runExtensionHook(hookOf(`echo '{"hookSpecificOutput": {"hookEventName": "Stop", "decision": "block", "reason": "docs missing"}}'`), CTX, false);
    expect(specific).toMatchObject({ outcome: 'block', reason: 'docs missing' });
  });

  it('halts on continue:false, which wins over a block decision', async () => {
    const r = await runExtensionHook(hookOf(`echo '{"continue": false, "stopReason": "quota reached", "decision": "block", "reason": "x"}'`), CTX, false);
    expect(r).toMatchObject({ outcome: 'halt', reason: 'quota reached' });
  });

  it('allows on exit 0 with no JSON, or with JSON that decides nothing', async () => {
    expect(await runExtensionHook(hookOf('echo all fine'), CTX, false)).toMatchObject({ outcome: 'allow', reason: '' });
    const r = await runExtensionHook(hookOf(`echo '{"systemMessage": "hi"}'`), CTX, false);
    expect(r.outcome).toBe('allow');
    expect(r.note).toBeUndefined();
  });

  it.each([
    ['another exit code', 'echo oops >&2; exit 1', 'exited with code 1'],
    ['a missing command', 'gatehouse-no-such-command-xyz', 'exited with code 127'],
    ['unparseable JSON', `echo '{"decision": "block",'`, 'does not parse'],
    ['a timeout', 'sleep 30', 'timed out'],
  ])('fails open with a note on %s', async (_what, command, note) => {
    const r = await runExtensionHook(hookOf(command, 1), CTX, false);
    expect(r.outcome).toBe('allow');
    expect(r.note).toContain(note);
  });

  it('fails open with a note on a spawn failure', async () => {
    rmSync(worktree, { recursive: true });
    const r = await runExtensionHook(hookOf('exit 2'), CTX, false);
    expect(r.outcome).toBe('allow');
    expect(r.note).toContain('could not start');
  });

  it('sends the Claude-style Stop payload on stdin and sets CLAUDE_PROJECT_DIR', async () => {
    const out = join(t.dir, 'payload.json');
    const r = await runExtensionHook(hookOf(`cat > ${out}; echo "$CLAUDE_PROJECT_DIR"`), CTX, true, { env });
    expect(r.stdout.trim()).toBe(worktree);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({
      session_id: CTX.session_id,
      hook_event_name: 'Stop',
      stop_hook_active: true,
      last_assistant_message: CTX.final_text,
      cwd: worktree,
    });
  });
});

describe('extensionStopHooksVerifier', () => {
  it('is the fail-open stage extension_stop_hooks, and halt outranks block', async () => {
    const store = memoryStore();
    const v = extensionStopHooksVerifier([hookOf('echo no >&2; exit 2'), hookOf(`echo '{"continue": false, "stopReason": "stop now"}'`)], store);
    expect(v).toMatchObject({ name: 'extension_stop_hooks', posture: 'fail-open' });
    const res = await new VerifierChain([v]).run(CTX, signal());
    expect(res).toMatchObject({ outcome: 'halt', decidedBy: 'extension_stop_hooks', reason: 'stop now' });
  });

  it('continues with notes when a hook is broken', async () => {
    const out = await extensionStopHooksVerifier([hookOf('exit 9')], memoryStore()).verify(CTX, signal());
    expect(out.kind).toBe('continue');
    expect(out.detail).toMatchObject({ notes: [expect.stringContaining('exited with code 9')] });
  });

  it(`lets the stop through after ${MAX_CONSECUTIVE_VETOES} consecutive vetoes, then counts again`, async () => {
    const store = memoryStore();
    const v = extensionStopHooksVerifier([hookOf('echo stuck >&2; exit 2')], store);
    for (let i = 1; i <= MAX_CONSECUTIVE_VETOES; i++) {
      expect(await v.verify(CTX, signal())).toMatchObject({ kind: 'block', reason: 'stuck' });
      expect(store.map.get(CONSECUTIVE_VETOES_KEY)).toBe(i);
    }
    const released = await v.verify(CTX, signal());
    expect(released.kind).toBe('continue');
    expect(released.detail).toMatchObject({ released: expect.stringContaining(`${MAX_CONSECUTIVE_VETOES} stops in a row`) });
    expect(store.map.get(CONSECUTIVE_VETOES_KEY)).toBe(0);
    expect((await v.verify(CTX, signal())).kind).toBe('block');
  });

  it('resets the count on any allow, and tells the hook stop_hook_active while it is vetoing', async () => {
    const store = memoryStore();
    const allowFile = join(t.dir, 'allow');
    const log = join(t.dir, 'active.log');
    const script = `{ cat; echo; } >> ${log}; if [ -f ${allowFile} ]; then exit 0; fi; echo no >&2; exit 2`;
    const v = extensionStopHooksVerifier([hookOf(script)], store);
    for (let i = 0; i < MAX_CONSECUTIVE_VETOES - 1; i++) expect((await v.verify(CTX, signal())).kind).toBe('block');
    writeFileSync(allowFile, '');
    expect((await v.verify(CTX, signal())).kind).toBe('continue');
    expect(store.map.get(CONSECUTIVE_VETOES_KEY)).toBe(0);
    rmSync(allowFile);
    // A full run of vetoes is needed again before the release.
    for (let i = 0; i < MAX_CONSECUTIVE_VETOES; i++) expect((await v.verify(CTX, signal())).kind).toBe('block');
    expect((await v.verify(CTX, signal())).kind).toBe('continue');
    const active = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { stop_hook_active: boolean }).stop_hook_active);
    // Four vetoes, the allow (still active), then a fresh run of vetoes and the release.
    expect(active).toEqual([false, true, true, true, true, false, true, true, true, true, true]);
  });

  it('works with a store whose methods return promises', async () => {
    const map = new Map<string, unknown>();
    const store: SessionKeyValueStore = { get: async (k) => map.get(k), set: async (k, v) => void map.set(k, v) };
    const v = extensionStopHooksVerifier([hookOf('exit 2')], store);
    await v.verify(CTX, signal());
    await v.verify(CTX, signal());
    expect(map.get(CONSECUTIVE_VETOES_KEY)).toBe(2);
  });

  it('skips the stage when there are no hooks', async () => {
    const store = memoryStore();
    expect(await extensionStopHooksVerifier([], store).verify(CTX, signal())).toMatchObject({ kind: 'continue', detail: { skipped: 'no extension stop hooks' } });
    expect(store.map.size).toBe(0);
  });
});
