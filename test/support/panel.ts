// Helpers of the approvals-panel tests: wait for a frame of an ink-testing-library render,
// and the key sequences a terminal sends.

/** How long a frame may take to show a change: the queue's watch polls every 250 ms. */
// Generous: a loaded 2-core CI machine can stall a render for seconds; the poll returns as soon as it is met.
const FRAME_WAIT_MS = 20_000;
const FRAME_POLL_MS = 10;

export const DOWN = '\u001B[B';
export const PAGE_DOWN = '\u001B[6~';
export const PAGE_UP = '\u001B[5~';
export const ENTER = '\r';
export const ESC = '\u001B';

/** What the helpers need of a render: its last frame. */
export type Frames = { lastFrame: () => string | undefined };

/** Polls the last frame until `predicate` holds; fails with the frame it last saw. */
export async function frameWhere(app: Frames, predicate: (frame: string) => boolean): Promise<string> {
  const deadline = Date.now() + FRAME_WAIT_MS;
  for (;;) {
    const frame = app.lastFrame() ?? '';
    if (predicate(frame)) return frame;
    if (Date.now() > deadline) throw new Error(`frame never matched; last frame:\n${frame}`);
    await new Promise((done) => setTimeout(done, FRAME_POLL_MS));
  }
}
