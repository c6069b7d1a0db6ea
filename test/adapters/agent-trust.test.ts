// The folder-trust edits for Gemini CLI and Copilot CLI: added only when nothing covers the
// folder, undone exactly, and — when the agent rewrote the file during the session — only
// Gatehouse's own entry removed, everything the agent added kept.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureCopilotTrust, undoCopilotTrust } from '../../src/adapters/copilot/trust.js';
import { ensureTrusted, undoTrust } from '../../src/adapters/gemini/trust.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gh-trust-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('Gemini trustedFolders.json', () => {
  it('creates the file for a new folder and deletes it again', () => {
    const file = join(dir, 'trustedFolders.json');
    const r = ensureTrusted('/projects/p', file);
    expect(r.ok && r.value.added).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ '/projects/p': 'TRUST_FOLDER' });
    if (r.ok) expect(undoTrust(r.value)).toEqual({ ok: true, value: undefined });
    expect(() => readFileSync(file)).toThrow();
  });

  it('treats a trusted parent as covering the folder, and keeps what Gemini added meanwhile', () => {
    const file = join(dir, 'trustedFolders.json');
    writeFileSync(file, JSON.stringify({ '/projects/child': 'TRUST_PARENT' }));
    const covered = ensureTrusted('/projects/p', file);
    expect(covered.ok && covered.value.added).toBe(false);
    writeFileSync(file, JSON.stringify({ '/other': 'TRUST_FOLDER' }));
    const r = ensureTrusted('/projects/p', file);
    expect(r.ok && r.value.added).toBe(true);
    writeFileSync(file, JSON.stringify({ '/other': 'TRUST_FOLDER', '/projects/p': 'TRUST_FOLDER', '/new': 'TRUST_FOLDER' }));
    if (r.ok) undoTrust(r.value);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ '/other': 'TRUST_FOLDER', '/new': 'TRUST_FOLDER' });
  });

  it('refuses a folder marked DO_NOT_TRUST and a file that is not an object', () => {
    const file = join(dir, 'trustedFolders.json');
    writeFileSync(file, JSON.stringify({ '/projects/p': 'DO_NOT_TRUST' }));
    expect(ensureTrusted('/projects/p', file).ok).toBe(false);
    writeFileSync(file, '[1]');
    expect(ensureTrusted('/projects/p', file).ok).toBe(false);
  });
});

describe('an agent home that does not exist yet', () => {
  it('is created for the trust entry, as the agent itself would create it', () => {
    const gemini = ensureTrusted('/projects/p', join(dir, 'g', '.gemini', 'trustedFolders.json'));
    expect(gemini.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'g', '.gemini', 'trustedFolders.json'), 'utf8'))).toEqual({ '/projects/p': 'TRUST_FOLDER' });
    const copilot = ensureCopilotTrust('/projects/p', join(dir, 'c', 'config.json'));
    expect(copilot.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'c', 'config.json'), 'utf8'))).toEqual({ trusted_folders: ['/projects/p'] });
  });
});

describe('an existing trust file', () => {
  it('keeps the mode its owner gave it, through the edit and its undo', () => {
    const gemini = join(dir, 'trustedFolders.json');
    const copilot = join(dir, 'config.json');
    writeFileSync(gemini, '{}', { mode: 0o644 });
    writeFileSync(copilot, '{}', { mode: 0o644 });
    const g = ensureTrusted('/projects/p', gemini);
    const c = ensureCopilotTrust('/projects/p', copilot);
    expect([statSync(gemini).mode & 0o777, statSync(copilot).mode & 0o777]).toEqual([0o644, 0o644]);
    if (g.ok) undoTrust(g.value);
    if (c.ok) undoCopilotTrust(c.value);
    expect([readFileSync(gemini, 'utf8'), readFileSync(copilot, 'utf8')]).toEqual(['{}', '{}']);
    expect([statSync(gemini).mode & 0o777, statSync(copilot).mode & 0o777]).toEqual([0o644, 0o644]);
  });
});

describe('Copilot config.json', () => {
  it('keeps the comment header and, when Copilot rewrote the file, removes only our folder', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, '// managed automatically\n{"trusted_folders": ["/a"]}\n');
    const r = ensureCopilotTrust('/projects/p', file);
    expect(r.ok && r.value.added).toBe(true);
    expect(readFileSync(file, 'utf8').startsWith('// managed automatically\n')).toBe(true);
    writeFileSync(file, '// managed automatically\n{"trusted_folders": ["/a", "/projects/p"], "lastLogin": "x"}\n');
    if (r.ok) undoCopilotTrust(r.value);
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith('// managed automatically\n')).toBe(true);
    expect(JSON.parse(after.split('\n').slice(1).join('\n'))).toEqual({ trusted_folders: ['/a'], lastLogin: 'x' });
  });

  it('adds nothing under a trusted parent', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ trusted_folders: ['/projects'] }));
    const r = ensureCopilotTrust('/projects/p', file);
    expect(r.ok && r.value.added).toBe(false);
  });
});
