// LISTEN on the approvals channel over one dedicated connection, reconnecting with backoff
// after the database goes away. A fast path only: every user of it also polls, since a
// notification sent while the connection was down is never delivered.
import type { PoolClient } from 'pg';
import { APPROVAL_CHANNEL, type ApprovalNotice } from './pg-approval-rows.js';
import type { PgStore } from './pg-connect.js';

/** First retry after the listening connection fails; doubled per failure up to the max. */
const RETRY_MIN_MS = 200;
/** Longest wait between retries: a returning database is noticed within this (the poll covers the gap). */
const RETRY_MAX_MS = 5_000;

/** A running listener; `close` stops it and releases its connection. */
export interface ApprovalListener {
  close(): Promise<void>;
}

/** Callbacks besides the notices. */
export interface ListenHooks {
  /** The connection is listening (again): whatever was announced while it was down was missed. */
  onUp?: () => void;
  /** The connection failed; it is retried. */
  onDown?: (err: unknown) => void;
}

/** The next retry delay after `failures` failures in a row. */
export function backoffMs(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(failures, 16));
}

function parseNotice(payload: string | undefined): ApprovalNotice | null {
  try {
    const v = JSON.parse(payload ?? '') as Partial<ApprovalNotice>;
    return typeof v.id === 'string' && typeof v.machine === 'string' && typeof v.event === 'string' ? (v as ApprovalNotice) : null;
  } catch {
    return null;
  }
}

/**
 * Listens on the approvals channel until closed, calling `onNotice` for each well-formed notice.
 * The connection is taken from the store's pool and never returned while it listens.
 * @example const l = listenApprovals(store, (n) => n.machine === me && sync(), { onUp: sync }); await l.close();
 */
export function listenApprovals(store: PgStore, onNotice: (n: ApprovalNotice) => void, hooks: ListenHooks = {}): ApprovalListener {
  let closed = false;
  let client: PoolClient | null = null;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;

  const retry = (err: unknown): void => {
    if (closed) return;
    hooks.onDown?.(err);
    timer = setTimeout(connect, backoffMs(failures++));
    timer.unref();
  };
  const drop = (c: PoolClient, err: unknown): void => {
    if (client !== c) return;
    client = null;
    // Destroys the connection instead of returning a broken one to the pool.
    c.release(err instanceof Error ? err : new Error(String(err)));
    retry(err);
  };
  async function connect(): Promise<void> {
    timer = null;
    if (closed) return;
    let c: PoolClient;
    try {
      c = await store.pool.connect();
    } catch (err) {
      return retry(err);
    }
    if (closed) return c.release();
    client = c;
    c.on('error', (err) => drop(c, err));
    c.on('end', () => drop(c, new Error('the listening connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel !== APPROVAL_CHANNEL) return;
      const n = parseNotice(msg.payload);
      if (n === null) return;
      try {
        onNotice(n);
      } catch {
        // A listener's bug must not take the connection (or the process) down; the poll covers it.
      }
    });
    try {
      await c.query(`LISTEN ${APPROVAL_CHANNEL}`);
    } catch (err) {
      return drop(c, err);
    }
    failures = 0;
    hooks.onUp?.();
  }
  void connect();
  return {
    async close(): Promise<void> {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      const c = client;
      client = null;
      if (c === null) return;
      try {
        await c.query(`UNLISTEN ${APPROVAL_CHANNEL}`);
        c.release();
      } catch (err) {
        c.release(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}
