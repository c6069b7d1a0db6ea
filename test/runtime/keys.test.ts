// The project's signing key as a long-lived host loads it at every seal: parsed once per PEM
// text, and always the key the file holds now.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey, keysDir, loadOrCreateKey } from '../../src/runtime/keys.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loadOrCreateKey', () => {
  it('parses an unchanged key file once, and loads the new key once the file holds another', () => {
    const state = mkdtempSync(join(tmpdir(), 'gh-keys-'));
    dirs.push(state);
    const first = loadOrCreateKey(state);
    expect(loadOrCreateKey(state)).toBe(first);
    const next = generateKey(keysDir(state));
    expect(next.keyId).not.toBe(first.keyId);
    expect(loadOrCreateKey(state).keyId).toBe(next.keyId);
  });
});
