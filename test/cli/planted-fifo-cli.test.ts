// Outside a sandbox the agent can write the project's state folder, and put a FIFO where a
// command reads a record: opening it for reading would block until someone writes to it. Every
// command that reads one answers at once, says what it could not read, and loses nothing else.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

let worktree: string;
let state: string;
let session: string;

/** A command on this project (its options before any `--`), killed after 20 s: a hang shows as a null status. */
const cli = (args: string[]) => {
  const at = args.includes('--') ? args.indexOf('--') : args.length;
  return gatehouse([...args.slice(0, at), '--worktree', worktree, '--state-dir', state, ...args.slice(at)], { timeout: 20_000 });
};

const plant = (file: string): void => {
  rmSync(file, { force: true });
  execFileSync('mkfifo', [file]);
};

beforeEach(() => {
  const root = tempDir('gh-fifo-cli-');
  worktree = join(root, 'wt');
  state = join(root, 'state');
  mkdirSync(worktree);
  const r = gatehouse(['run', '--agent', 'none', '--worktree', worktree, '--state-dir', state, '--require', 'check=true', '--json', '--', 'true']);
  expect(r.status, r.stderr).toBe(0);
  session = (JSON.parse(r.stdout) as { session_id: string }).session_id;
});

describe('a FIFO planted in the state folder', () => {
  it("in place of a session's meta.json: session list answers, and show says it cannot read it", () => {
    plant(join(state, 'sessions', session, 'meta.json'));
    const list = cli(['session', 'list', '--json']);
    expect(list.status).toBe(0);
    const show = cli(['session', 'show', session]);
    expect(show.status).not.toBe(0);
    expect(show.status).not.toBeNull();
    expect(show.stderr).toContain(session);
  });

  it('in place of the checkpoints: audit verify answers, failing, and names the file', () => {
    plant(join(state, 'audit', 'checkpoints.jsonl'));
    const r = cli(['audit', 'verify']);
    expect(r.status).toBe(1);
    expect(`${r.stdout}${r.stderr}`).toContain('checkpoints.jsonl cannot be read');
  });

  it('in place of an evidence bundle: evidence verify refuses it at once, and list still lists the others', () => {
    // A second session, so that there is a bundle besides the one replaced.
    expect(gatehouse(['run', '--agent', 'none', '--worktree', worktree, '--state-dir', state, '--require', 'check=true', '--', 'true']).status).toBe(0);
    const bundles = readdirSync(join(state, 'evidence', 'bundles')).filter((n) => n.endsWith('.json'));
    expect(bundles.length).toBeGreaterThanOrEqual(2);
    const id = bundles[0]!.slice(0, -'.json'.length);
    plant(join(state, 'evidence', 'bundles', bundles[0]!));
    const v = cli(['evidence', 'verify', id, '--key', join(state, 'keys', 'ed25519.pub.pem')]);
    expect(v.status).toBe(2);
    expect(v.stdout).toContain(`${id}.json is not a regular file`);
    const list = cli(['evidence', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain(bundles[1]!.slice(0, -'.json'.length));
  });

  it("in place of the supervisor's record: session start --transport auto goes cold at once", () => {
    mkdirSync(join(state, 'gateway'), { recursive: true });
    plant(join(state, 'gateway', 'supervisor.json'));
    const r = cli(['session', 'start', '--agent', 'claude', '--id', 'after-fifo', '--transport', 'auto', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { transport: unknown }).transport).toEqual({ kind: 'command' });
  });

  it('named by --config: run refuses it as not a regular file, and starts nothing', () => {
    const config = join(worktree, '..', 'gatehouse.yaml');
    plant(config);
    const r = cli(['run', '--agent', 'none', '--config', config, '--', 'true']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`Config file ${config} is not a regular file`);
  });

  it("in place of the agent's settings file: session end answers, names it, and leaves it to the person", () => {
    expect(cli(['session', 'start', '--agent', 'claude', '--id', 'settings-fifo', '--json']).status).toBe(0);
    const settings = join(worktree, '.claude', 'settings.local.json');
    plant(settings);
    const r = cli(['session', 'end', 'settings-fifo']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${settings} is not a regular file`);
    expect(r.stderr).toContain('Remove it or put the settings file back');
  });

  it("in place of the hooks file Gatehouse owns in the worktree (Copilot's): session end answers, names it, and leaves it", () => {
    const env = { COPILOT_HOME: join(worktree, '..', 'copilot-home') };
    const start = gatehouse(['session', 'start', '--agent', 'copilot', '--id', 'owned-fifo', '--transport', 'command', '--worktree', worktree, '--state-dir', state], { env, timeout: 20_000 });
    expect(start.status, start.stderr).toBe(0);
    const hooks = join(worktree, '.github', 'hooks', 'gatehouse.json');
    plant(hooks);
    const r = gatehouse(['session', 'end', 'owned-fifo', '--worktree', worktree, '--state-dir', state], { env, timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${hooks} is not a regular file`);
    expect(r.stderr).toContain('Gatehouse leaves it to you');
    expect(lstatSync(hooks).isFIFO()).toBe(true);
  });

  it('in place of the audit log: verify reports it broken, naming it, and run refuses to start a session it could not record', () => {
    const log = join(state, 'audit', 'log.jsonl');
    plant(log);
    const v = cli(['audit', 'verify']);
    expect(v.status).toBe(1);
    expect(v.stdout).toContain(`${log} is not a regular file`);
    const before = readdirSync(join(state, 'sessions'));
    const r = cli(['run', '--agent', 'none', '--require', 'check=true', '--', 'true']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`gatehouse: ${log} is not a regular file: the audit log cannot be appended to (ENOTREG)`);
    expect(r.stderr).not.toContain('    at ');
    expect(readdirSync(join(state, 'sessions'))).toEqual(before);
  });
});
