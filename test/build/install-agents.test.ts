// scripts/install-agents.mjs, which `npm test` runs first: with every pinned agent already in the
// cache it asks each binary its version once (then remembers it ran, in .gatehouse-checked), and
// that must not write into the user's home or temp folder (Copilot unpacks 235 MB into
// ~/.cache/copilot on its first run, OpenCode writes its data and temp folders).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import TESTED from '../../src/runtime/doctor/tested-agents.json' with { type: 'json' };
import { agentCacheDir } from '../../src/runtime/doctor/tested-agents.js';

const cache = agentCacheDir(process.env);
const installed = TESTED.every((a) => existsSync(join(cache, `${a.name}@${a.version}`, ('bin' in a ? a.bin : a.entry) ?? '')));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!installed)('install-agents with every agent in the cache', () => {
  it("asks each binary its version without writing into the user's home or temp folder", () => {
    const home = mkdtempSync(join(tmpdir(), 'gh-install-home-'));
    const tmp = mkdtempSync(join(tmpdir(), 'gh-install-tmp-'));
    dirs.push(home, tmp);
    // Forgotten, so that each binary is asked again.
    const marks = TESTED.filter((a) => 'bin' in a).map((a) => join(cache, `${a.name}@${a.version}`, '.gatehouse-checked'));
    for (const m of marks) rmSync(m, { force: true });
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, TMPDIR: tmp, GATEHOUSE_AGENT_CACHE: cache };
    const r = spawnSync(process.execPath, ['scripts/install-agents.mjs'], { encoding: 'utf8', env, timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    for (const a of TESTED) expect(r.stdout).toContain(`install-agents: ${a.pkg}@${a.version} ready`);
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    for (const m of marks) expect(readFileSync(m, 'utf8')).toBe(`${process.platform}-${process.arch}\n`);
  }, 150_000);
});
