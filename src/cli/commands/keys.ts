// `gatehouse keys show|rotate`: the project's Ed25519 signing key (public half only) and
// its rotation, which is recorded, endorsed by the old key, inside the audit log.
import { Command } from 'commander';
import { keyRotatedData } from '../../runtime/audit/rotation.js';
import { rotateKey } from '../../runtime/key-history.js';
import { loadOrCreateKey } from '../../runtime/keys.js';
import { auditLogFor, osUserActor } from '../../runtime/recorder.js';
import { printJson, projectStateFor } from '../context.js';

type Flags = { worktree?: string; stateDir?: string; json?: boolean };

/** The `keys` command group. */
export function keysCommand(): Command {
  const keys = new Command('keys').description("the project's signing key for audit checkpoints and evidence");
  keys
    .command('show')
    .description('print the public key (PEM) and its key id (hex SHA-256 of the SPKI DER); creates the key on first use')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print as JSON')
    .action((flags: Flags) => {
      const key = loadOrCreateKey(projectStateFor(flags.worktree, flags.stateDir));
      if (flags.json) printJson({ key_id: key.keyId, name: key.name, public_key_pem: key.publicKeyPem });
      else process.stdout.write(`key id: ${key.keyId}\n${key.publicKeyPem}`);
    });
  keys
    .command('rotate')
    .description('replace the signing key; the rotation is recorded in the audit log, endorsed by the old key')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print as JSON')
    .action((flags: Flags) => {
      const state = projectStateFor(flags.worktree, flags.stateDir);
      const { previous, current } = rotateKey(state);
      const audit = auditLogFor(state);
      audit.append({ type: 'key_rotated', actor: osUserActor(), session_id: null, data: keyRotatedData(previous, current) });
      // A checkpoint under the new key right away, so the rotation itself is anchored.
      audit.checkpoint(current);
      if (flags.json) printJson({ previous_key_id: previous.keyId, key_id: current.keyId, public_key_pem: current.publicKeyPem });
      else process.stdout.write(`rotated: ${previous.keyId} -> ${current.keyId}\n${current.publicKeyPem}`);
    });
  return keys;
}
