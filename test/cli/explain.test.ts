import { describe, expect, it } from 'vitest';
import { gatehouse } from '../support/cli.js';

// The built CLI (dist/cli.js) is what runs: `npm run build` first.
describe('gatehouse explain', () => {
  it('prints the class, the reason and the knowledge-base entry of a read-only command, exit 0', () => {
    const r = gatehouse(['explain', '--', 'kubectl', 'get', 'pods', '-n', 'web']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^class: approve$/m);
    expect(r.stdout).toMatch(/knowledge base: kubectl get/);
  });

  it('says why a credential print is asked about', () => {
    const r = gatehouse(['explain', '--json', '--', 'gh auth token']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { class: string; reason: string; kb: string };
    expect(out.class).toBe('ask');
    expect(out.kb).toBe('gh auth token');
    expect(out.reason).toMatch(/prints the GitHub token/);
  });

  it('names the deny rule for a destructive command', () => {
    const r = gatehouse(['explain', '--', 'rm -rf /']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^class: deny$/m);
    expect(r.stdout).toMatch(/^rule: deny-list$/m);
  });

  it('exits 2 with a clear message when no command is given', () => {
    const r = gatehouse(['explain']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nothing to explain: give the command after `--`/);
  });
});
