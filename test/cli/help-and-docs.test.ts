// Help texts and docs that state facts about the code, checked against the code: the agents
// `--agent` lists, `npm start -- --project`, the matcher the README names, and which Bash
// targets approvals.md says are checked.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatehouse, hook, tempDir } from '../support/cli.js';

const doc = (name: string): string => readFileSync(join('docs', name), 'utf8');
/** The backticked names between `<!-- marker -->` and `<!-- /marker -->` in a doc. */
function listed(text: string, marker: string): string[] {
  const m = new RegExp(`<!-- ${marker} -->([\\s\\S]*?)<!-- /${marker} -->`).exec(text);
  if (m === null) throw new Error(`no ${marker} list`);
  return [...m[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!);
}

describe('help texts', () => {
  it('lists every registered agent and none under --agent, for session start and run', () => {
    const agents = Object.keys(JSON.parse(gatehouse(['agents', '--json']).stdout) as Record<string, unknown>);
    expect(agents.length).toBeGreaterThan(1);
    for (const cmd of [['session', 'start'], ['run']]) {
      const help = gatehouse([...cmd, '--help']).stdout.replace(/\s+/g, ' ');
      const agentHelp = /--agent <name>(.*?)--worktree/.exec(help)?.[1] ?? '';
      for (const a of agents) expect(agentHelp).toContain(a);
      expect(agentHelp).toContain('none');
      expect(agentHelp).not.toContain('any other name');
    }
  });
});

describe('npm start', () => {
  it('passes what follows `--` to gatehouse serve, so `npm start -- --project DIR` supervises DIR', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    // npm appends the extra arguments to the end of the script: it must end with the serve command.
    expect(pkg.scripts.start).toMatch(/node dist\/cli\.js serve$/);
    expect(readFileSync('README.md', 'utf8')).toContain('npm start -- --project /path/to/app');
    expect(gatehouse(['serve', '--help']).stdout).toContain('--project <dir>');
  });
});

describe('the docs against the code', () => {
  let root: string;
  let state: string;
  let id: string;
  beforeAll(() => {
    const base = tempDir('gh-docs-');
    root = join(base, 'repo');
    state = join(base, 'state');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'README.md'), 'hello\n');
    writeFileSync(join(root, 'src', 'a.txt'), 'a\n');
    const git = (...args: string[]): void => void spawnSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'one');
    writeFileSync(join(root, 'README.md'), 'hello again\n');
    git('commit', '-qam', 'two');
    // The README's worked example.
    const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--allow', 'test/', '--require', 'test=npm test']);
    expect(r.status).toBe(0);
    id = r.stdout.trim();
  });

  it("names the PreToolUse matcher the README's worked example renders", () => {
    const readme = readFileSync('README.md', 'utf8');
    const said = /`PreToolUse` on [^(]*\(`matcher: "([^"]+)"`/.exec(readme)?.[1];
    const settings = JSON.parse(readFileSync(join(root, '.claude', 'settings.local.json'), 'utf8')) as { hooks: { PreToolUse: { matcher: string }[] } };
    expect(said).toBeDefined();
    expect(settings.hooks.PreToolUse.map((g) => g.matcher)).toEqual([said]);
  });

  /** One command per name approvals.md lists, each aimed outside the allowlist (src/**, test/). */
  const WRITES: Record<string, string> = {
    '>': 'echo x > README.md',
    '>>': 'echo x >> README.md',
    '&>': 'echo x &> README.md',
    tee: 'echo x | tee README.md',
    'sed -i': "sed -i 's/a/b/' README.md",
    'perl -i': "perl -i -pe 's/a/b/' README.md",
    cp: 'cp src/a.txt README.md',
    mv: 'mv src/a.txt README.md',
    install: 'install src/a.txt README.md',
    ln: 'ln -s src/a.txt link.txt',
    touch: 'touch new.txt',
    mkdir: 'mkdir newdir',
    truncate: 'truncate -s 0 README.md',
    chmod: 'chmod 600 README.md',
    chown: 'chown 0 README.md',
    chgrp: 'chgrp 0 README.md',
    'dd of=': 'dd if=src/a.txt of=README.md',
    'sort -o': 'sort -o README.md src/a.txt',
    uniq: 'uniq src/a.txt README.md',
    patch: 'patch README.md fix.diff',
    'curl -o': 'curl -o README.md http://127.0.0.1:9/x',
    'wget -O': 'wget -O README.md http://127.0.0.1:9/x',
    'tar -x': 'tar -xf src/a.tar',
    unzip: 'unzip src/a.zip',
    rsync: 'rsync src/a.txt README.md',
    scp: 'scp src/a.txt README.md',
    'find -fprint': 'find src -fprint README.md',
    'git checkout': 'git checkout HEAD~1 -- README.md',
    'git restore': 'git restore --source HEAD~1 README.md',
  };
  const DELETES: Record<string, string> = {
    rm: 'rm README.md',
    rmdir: 'rmdir docs',
    unlink: 'unlink README.md',
    shred: 'shred -u README.md',
    'find -delete': 'find . -name README.md -delete',
    'git rm': 'git rm README.md',
  };
  const bash = (command: string): number | null =>
    hook(
      ['check', '--session', id, '--event', 'PreToolUse', '--state-dir', state],
      { session_id: 'x', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Bash', tool_input: { command } },
      { cwd: root },
    ).status;

  it('refuses every Bash write target approvals.md lists as checked, outside the allowlist', () => {
    const names = listed(doc('approvals.md'), 'checked-writes');
    expect(names).toEqual(Object.keys(WRITES));
    const notRefused = Object.entries(WRITES)
      .filter(([, cmd]) => bash(cmd) !== 2)
      .map(([n]) => n);
    expect(notRefused).toEqual([]);
  });

  it('lets every delete approvals.md lists through the allowlist, as it says', () => {
    const names = listed(doc('approvals.md'), 'deletes');
    expect(names).toEqual(Object.keys(DELETES));
    const refused = Object.entries(DELETES)
      .filter(([, cmd]) => bash(cmd) !== 0)
      .map(([n]) => n);
    expect(refused).toEqual([]);
  });
});
