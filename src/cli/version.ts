// The version `gatehouse --version` prints: read from the installed package's own
// package.json, so a release needs no second place to bump.
import { readFileSync } from 'node:fs';
import { isRecord } from '../core/is-record.js';

/**
 * The `version` field of the package.json one folder above the CLI bundle (`dist/cli.js` →
 * `package.json`), as laid out in a clone and in an installed package alike.
 * @example packageVersion() // '0.1.0'
 */
export function packageVersion(): string {
  const file = new URL('../package.json', import.meta.url);
  const pkg: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const version = isRecord(pkg) ? pkg['version'] : undefined;
  if (typeof version !== 'string') throw new Error(`${file.pathname} has no version string`);
  return version;
}
