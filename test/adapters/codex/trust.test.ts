// Codex hook trust through the real `codex app-server`: the project and exactly the session's
// hooks become trusted (Codex itself says so), the user's other hooks stay untrusted, an
// explicit "untrusted" is refused, and the undo gives back the config byte for byte — or,
// when Codex or the user changed it meanwhile, removes only the trust tables it added.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodexAppServer } from '../../../src/adapters/codex/app-server.js';
import { trustCodexHooks, undoCodexTrust } from '../../../src/adapters/codex/trust.js';
import { codexBinary } from '../../../src/runtime/doctor/run/codex-run.js';

const bin = codexBinary();
const OURS = ['/usr/bin/true gatehouse-pre', '/usr/bin/true gatehouse-stop'];
const USERS = 'echo the-users-own-hook';
const USER_CONFIG = '# my codex settings\nmodel = "gpt-5"\n\n[tui]\nnotifications = true\n';

let dir: string;
let home: string;
let project: string;
let hooksFile: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'gh-codex-trust-')));
  home = join(dir, 'home');
  project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.codex'), { recursive: true });
  hooksFile = join(project, '.codex', 'hooks.json');
  const group = (command: string) => ({ matcher: '*', hooks: [{ type: 'command', command, timeout: 30 }] });
  writeFileSync(hooksFile, JSON.stringify({ hooks: { PreToolUse: [group(USERS), group(OURS[0]!)], Stop: [{ hooks: [{ type: 'command', command: OURS[1], timeout: 30 }] }] } }));
  env = { ...process.env, CODEX_HOME: home, HOME: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const configFile = (): string => join(home, 'config.toml');

/** Each hook's trust status as Codex reports it, by command. */
async function statuses(): Promise<Record<string, string>> {
  const server = await CodexAppServer.start(bin!, env);
  try {
    const listed = await server.call<{ data: { hooks: { command?: string; trustStatus: string }[] }[] }>('hooks/list', { cwds: [project] });
    return Object.fromEntries(listed.data.flatMap((d) => d.hooks).map((h) => [h.command ?? '', h.trustStatus]));
  } finally {
    await server.close();
  }
}

const trust = () => trustCodexHooks({ bin: bin!, project, hooksFile, commands: OURS, expected: 2, env });

describe.skipIf(bin === null)('Codex hook trust through codex app-server', () => {
  it("trusts the project and exactly the session's hooks, and the undo restores the config byte for byte", async () => {
    writeFileSync(configFile(), USER_CONFIG);
    const r = await trust();
    expect(r.ok ? r.value : r.reason).toMatchObject({ project_added: true });
    if (!r.ok) return;
    expect(r.value.hook_keys).toHaveLength(2);
    expect(await statuses()).toEqual({ [OURS[0]!]: 'trusted', [OURS[1]!]: 'trusted', [USERS]: 'untrusted' });
    expect(readFileSync(configFile(), 'utf8')).toContain('# my codex settings');
    expect(undoCodexTrust(r.value)).toEqual({ ok: true, value: undefined });
    expect(readFileSync(configFile(), 'utf8')).toBe(USER_CONFIG);
  });

  it('removes a config file it created', async () => {
    const r = await trust();
    expect(r.ok).toBe(true);
    expect(existsSync(configFile())).toBe(true);
    if (r.ok) undoCodexTrust(r.value);
    expect(existsSync(configFile())).toBe(false);
  });

  it('keeps a project the user trusted, and only our tables go when the config changed meanwhile', async () => {
    writeFileSync(configFile(), `${USER_CONFIG}\n[projects."${project}"]\ntrust_level = "trusted"\n`);
    const r = await trust();
    expect(r.ok ? r.value.project_added : r.reason).toBe(false);
    if (!r.ok) return;
    const later = `${readFileSync(configFile(), 'utf8')}\n[profiles.fast]\nmodel = "gpt-5-mini"\n`;
    writeFileSync(configFile(), later);
    undoCodexTrust(r.value);
    const after = readFileSync(configFile(), 'utf8');
    expect(after).toContain('[profiles.fast]');
    expect(after).toContain(`[projects."${project}"]`);
    expect(after).not.toContain('trusted_hash');
    expect(await statuses()).toEqual({ [OURS[0]!]: 'untrusted', [OURS[1]!]: 'untrusted', [USERS]: 'untrusted' });
  });

  it('refuses a project the user marked untrusted, changing nothing', async () => {
    const text = `[projects."${project}"]\ntrust_level = "untrusted"\n`;
    writeFileSync(configFile(), text);
    const r = await trust();
    expect(r.ok ? 'trusted' : r.reason).toMatch(/told not to trust/);
    expect(readFileSync(configFile(), 'utf8')).toBe(text);
  });

  it('fails, putting the config back, when Codex does not list the expected hooks', async () => {
    writeFileSync(configFile(), USER_CONFIG);
    const r = await trustCodexHooks({ bin: bin!, project, hooksFile, commands: OURS, expected: 3, env });
    expect(r.ok ? 'trusted' : r.reason).toMatch(/Codex would not run the session's hooks \(2 of 3/);
    expect(readFileSync(configFile(), 'utf8')).toBe(USER_CONFIG);
  });
});

describe('a Codex that cannot run', () => {
  it('fails with the reason and leaves the config alone', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-codex-none-')));
    try {
      const r = await trustCodexHooks({ bin: join(project, 'missing-codex'), project, hooksFile: join(project, '.codex', 'hooks.json'), commands: [], expected: 1, env: { CODEX_HOME: project } });
      expect(r.ok ? 'trusted' : r.reason).toMatch(/cannot trust the session's hooks in Codex: cannot run codex app-server/);
      expect(existsSync(join(project, 'config.toml'))).toBe(false);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
