// An agent that skips hooks it does not trust needs a trust step beside the rendered hooks:
// taken at render (after the hooks are written, since some agents trust hooks by content),
// recorded with the render, and undone at unrender before the hooks come out. Hooks the agent
// would skip are never reported as rendered: if the trust step fails, the hooks come out again.
import { fail, ok, type Result } from '../core/result.js';
import { boolean, nullable, object, oneOf, text, type Shape } from '../core/shape.js';
import { recordsOf, type AgentAdapter, type RenderContext, type RenderedFile, type SyncRenderAdapter } from './adapter.js';

/** What the agent's trust step records (tagged by `kind`) and the file it changed. */
export interface TrustRecordBase {
  kind: string;
  file: string;
}

/**
 * What a folder-trust step (Gemini, Copilot) did to the agent's trust file: the folder it
 * added (or found trusted already: `added` false, nothing to undo) and the file's text before
 * (null: it did not exist) and after.
 */
export function folderTrustRecord<const K extends string>(kind: K) {
  return object({ kind: oneOf([kind] as const), file: text(), folder: text(), added: boolean(), original: nullable(text()), written: nullable(text()) });
}

/** One agent's trust step. */
export interface TrustStep<R extends TrustRecordBase> {
  kind: R['kind'];
  /** The record as render.json holds it: undo acts only on a record of this shape. */
  shape: Shape<R>;
  trust(ctx: RenderContext, rendered: RenderedFile[]): Result<R> | Promise<Result<R>>;
  undo(record: R): Result<void>;
}

/** `hooks` with `step` taken after its render and undone before its unrender. */
export function withTrustStep<R extends TrustRecordBase>(hooks: SyncRenderAdapter, step: TrustStep<R>): AgentAdapter {
  const isTrust = (r: unknown): r is R => typeof r === 'object' && r !== null && (r as { kind?: unknown }).kind === step.kind;
  /** The trust records checked, and the hooks' own records checked by their adapter: all or none. */
  const checked = (files: RenderedFile[]): Result<{ trust: R[]; hooks: RenderedFile[] }> => {
    const trust = recordsOf(
      step.shape,
      files.filter((f) => isTrust(f.record)),
      `the ${step.kind} step`,
    );
    if (!trust.ok) return trust;
    const rest = files.filter((f) => !isTrust(f.record));
    const own = hooks.checkRecords(rest);
    return own.ok ? ok({ trust: trust.value, hooks: rest }) : own;
  };
  return {
    ...hooks,
    async render(ctx): Promise<Result<RenderedFile[]>> {
      const rendered = hooks.render(ctx);
      if (!rendered.ok) return rendered;
      const trust = await step.trust(ctx, rendered.value);
      if (!trust.ok) {
        const removed = hooks.unrender(rendered.value);
        return removed.ok ? trust : fail(`${trust.reason}; the hooks just rendered could not be removed either (${removed.reason})`);
      }
      return ok([...rendered.value, { file: trust.value.file, record: trust.value }]);
    },
    unrender(files) {
      // Every record is checked before anything is undone: a bad one changes no file.
      const records = checked(files);
      if (!records.ok) return records;
      for (const record of records.value.trust) {
        const undone = step.undo(record);
        if (!undone.ok) return undone;
      }
      return hooks.unrender(records.value.hooks);
    },
    checkRecords: (files) => {
      const records = checked(files);
      return records.ok ? ok(undefined) : records;
    },
  };
}
