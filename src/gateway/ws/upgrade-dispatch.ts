// The one `upgrade` listener of a server: every upgrade passes the same checks (path, Host,
// Origin, a bearer it carries; see upgrade.ts), then goes to the endpoint of the project it names.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Credentials } from '../credentials.js';
import type { HostPolicy } from '../host-origin.js';
import type { ProjectEndpoint } from './endpoint.js';
import type { UpgradeRefusal } from './upgrade.js';
import { checkUpgrade, refuseUpgrade } from './upgrade.js';

/** Where a checked upgrade goes: a project's endpoint, or a refusal (unknown or malformed project). */
export type UpgradeTarget = { ok: true; endpoint: Pick<ProjectEndpoint, 'accept'> } | { ok: false; refusal: UpgradeRefusal };

/** What the dispatcher needs: the server's Host rule and credentials, and how to find an upgrade's endpoint. */
export interface DispatchOptions {
  hosts: HostPolicy;
  credentials: Credentials;
  target: (req: IncomingMessage) => UpgradeTarget | Promise<UpgradeTarget>;
}

/**
 * Listens for upgrades on `server` until closed.
 * @example const upgrades = dispatchUpgrades(server, { hosts, credentials, target: () => ({ ok: true, endpoint }) })
 */
export function dispatchUpgrades(server: Server, opts: DispatchOptions): { close(): void } {
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const check = checkUpgrade(req, opts.hosts, opts.credentials);
    if (!check.ok) {
      refuseUpgrade(socket, check.refusal);
      return;
    }
    Promise.resolve(opts.target(req)).then(
      (t) => {
        if (!t.ok) refuseUpgrade(socket, t.refusal);
        else t.endpoint.accept(req, socket, head, check.grant);
      },
      () => socket.destroy(),
    );
  };
  server.on('upgrade', onUpgrade);
  return { close: () => void server.off('upgrade', onUpgrade) };
}
