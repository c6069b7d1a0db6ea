// src/runtime/store/link-part.ts (team-link owns this file; the other parts copy this interface verbatim into their branch if it is not there yet — identical text, so the merge is clean)
import type { PgStore } from './pg-connect.js';
import type { Machine } from './machine.js';
export interface LinkContext {
  store: PgStore;
  machine: Machine;
  /** The project's state folder on this machine (the local store this link forwards). */
  projectState: string;
  /** The project's key (state-base.ts projectKey of the worktree's real path): names this project in the store. */
  projectKey: string;
  worktree: string;
  /** Called with a one-line message when something needs a person's attention (store down, conflict). */
  warn: (message: string) => void;
}
export interface LinkPart {
  /** Forwards whatever is waiting now and resolves when it is in the store (or rejects when the store is down). */
  flush(): Promise<void>;
  /** Stops timers and listeners; does not close the store. */
  stop(): Promise<void>;
}
export type StartPart = (ctx: LinkContext) => Promise<LinkPart>;
