import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync, cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

let base: string;
let root: string;
let state: string;
let pub: string;
const at = (): string[] => ['--worktree', root, '--state-dir', state];

beforeAll(() => {
  base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  // One session whose agent writes outside the allowlist: a failing end-of-session verdict.
  const r = gatehouse(['run', '--agent', 'claude', ...at(), '--allow', 'src/**', '--', process.execPath, '-e', "require('fs').writeFileSync('out.txt','x')"]);
  expect(r.status).toBe(1);
  const shown = gatehouse(['keys', 'show', '--json', ...at()]);
  pub = join(base, 'pub.pem');
  writeFileSync(pub, JSON.parse(shown.stdout).public_key_pem);
});

function copyState(): string {
  const copy = join(tempDir(), 'state');
  cpSync(state, copy, { recursive: true });
  return copy;
}

describe('gatehouse audit', () => {
  it('verifies an intact log against the trusted key', () => {
    const r = gatehouse(['audit', 'verify', '--key', pub, ...at()]);
    expect(r.stdout).toMatch(/^intact: \d+ events/);
    expect(r.status).toBe(0);
  });

  it('records the session lifecycle and the end-of-session verdict', () => {
    const events = gatehouse(['audit', 'tail', '-n', '50', '--json', ...at()])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const types = events.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('session_started');
    expect(types).toContain('session_ended');
    const verdict = events.find((e: { type: string; data: { where?: string } }) => e.type === 'completion_verdict' && e.data.where === 'end_of_session');
    expect(verdict).toMatchObject({ actor: 'system:session-check', data: { outcome: 'block', decided_by: 'scope_check' } });
  });

  it('names the first bad sequence number of an edited line and exits 1', () => {
    const copy = copyState();
    const log = join(copy, 'audit', 'log.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    const edited = lines[1]!.replace(/"time":"\d{4}/, '"time":"1999');
    expect(edited).not.toBe(lines[1]);
    lines[1] = edited;
    writeFileSync(log, lines.join('\n'));
    const r = gatehouse(['audit', 'verify', '--key', pub, '--worktree', root, '--state-dir', copy]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/BROKEN: first bad sequence number 1/);
  });

  it('detects a truncated tail against the last checkpoint', () => {
    const copy = copyState();
    const log = join(copy, 'audit', 'log.jsonl');
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    writeFileSync(log, `${lines.slice(0, -2).join('\n')}\n`);
    const r = gatehouse(['audit', 'verify', '--key', pub, '--worktree', root, '--state-dir', copy]);
    expect(r.status).toBe(1);
  });

  it('fails against a key that did not sign the checkpoints', () => {
    const other = join(base, 'other.pem');
    writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const r = gatehouse(['audit', 'verify', '--key', other, ...at()]);
    expect(r.status).toBe(1);
  });

  it('prints an inclusion proof and refuses a sequence number past the end', () => {
    const proof = JSON.parse(gatehouse(['audit', 'proof', '0', ...at()]).stdout);
    expect(proof).toMatchObject({ leaf_index: 0 });
    expect(Array.isArray(proof.hashes)).toBe(true);
    expect(gatehouse(['audit', 'proof', '99999', ...at()]).status).toBe(1);
    expect(gatehouse(['audit', 'proof', 'x', ...at()]).status).toBe(2);
    const empty = join(tempDir(), 'state');
    const none = gatehouse(['audit', 'proof', '0', '--worktree', root, '--state-dir', empty]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('no event 0: the log has no events yet');
  });

  it('keeps verifying with the old key after a rotation it endorsed', () => {
    const copy = copyState();
    const r = gatehouse(['keys', 'rotate', '--json', '--worktree', root, '--state-dir', copy]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).key_id).not.toBe(JSON.parse(gatehouse(['keys', 'show', '--json', ...at()]).stdout).key_id);
    const v = gatehouse(['audit', 'verify', '--key', pub, '--worktree', root, '--state-dir', copy]);
    expect(v.stdout).toMatch(/^intact/);
    expect(v.status).toBe(0);
  });
});

describe('gatehouse evidence', () => {
  const ids = (): { id: string; kind: string; where: string; verdict: string }[] => JSON.parse(gatehouse(['evidence', 'list', '--json', ...at()]).stdout);

  it('seals the end-of-session verdict as a bundle that verifies against the trusted key', () => {
    const end = ids().find((e) => e.where === 'end_of_session');
    expect(end).toMatchObject({ kind: 'completion_verdict', verdict: 'fail' });
    const r = gatehouse(['evidence', 'verify', end!.id, '--key', pub, ...at()]);
    expect(r.status).toBe(0);
    // Without a sandbox the agent could read the key: the bundle says so, and so does verify.
    expect(r.stdout).toContain('not sandboxed');
    const statement = JSON.parse(gatehouse(['evidence', 'show', end!.id, ...at(), '--json']).stdout).statement;
    expect(statement.predicate.decided_by).toBe('scope_check');
    expect(statement.predicate.sandboxed).toBe(false);
    // For a person: the facts in words, and how to verify, not the raw statement.
    const human = gatehouse(['evidence', 'show', end!.id, ...at()]);
    expect(human.status).toBe(0);
    expect(() => JSON.parse(human.stdout)).toThrow();
    for (const line of [`receipt    ${end!.id}`, 'kind       completion_verdict, end_of_session', 'verdict    fail', 'decided_by scope_check', `subjects   ${statement.subject.length}`]) {
      expect(human.stdout).toContain(line);
    }
    expect(human.stdout).toContain(`gatehouse evidence verify ${end!.id} --key`);
  });

  it('verifies an exported bundle moved to another machine, without the state dir', () => {
    const id = ids()[0]!.id;
    const out = join(tempDir(), 'bundle.json');
    expect(gatehouse(['evidence', 'export', id, '--out', out, ...at()]).status).toBe(0);
    const elsewhere = join(tempDir(), 'moved.json');
    cpSync(out, elsewhere);
    rmSync(out);
    expect(gatehouse(['evidence', 'verify', elsewhere, '--key', pub]).status).toBe(0);
  });

  it('exits 2 on a wrong key and 1 on an unknown bundle', () => {
    const other = join(base, 'other2.pem');
    writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString());
    expect(gatehouse(['evidence', 'verify', ids()[0]!.id, '--key', other, ...at()]).status).toBe(2);
    expect(gatehouse(['evidence', 'verify', 'ev-20990101T000000Z-0000000000000000', '--key', pub, ...at()]).status).toBe(1);
  });

  it('exits 2 when a stored output blob was altered', () => {
    const copy = copyState();
    const blobs = join(copy, 'evidence', 'blobs', 'sha256');
    const first = readdirSync(blobs)[0]!;
    writeFileSync(join(blobs, first), 'tampered');
    const results = ids().map((e) => gatehouse(['evidence', 'verify', e.id, '--key', pub, '--worktree', root, '--state-dir', copy]).status);
    expect(results).toContain(2);
  });
});
