// The lean hook entry, bundled on its own as dist/hook/hook.js: the agent runs
// `node dist/hook/hook.js check --session S --event E --state-dir D` on every gated call.
import { hookMain } from './hook-command.js';

const failClosedArg = process.argv.includes('--fail-closed');
process.on('uncaughtException', (err) => {
  process.stderr.write(`gatehouse hook: internal error: ${err.message}\n`);
  process.exit(failClosedArg ? 2 : 0);
});
hookMain(process.argv.slice(2)).then(
  (code) => {
    // Exit now: the verdict is written (synchronously), and nothing the call started outlives it.
    // Draining the event loop instead would first run what V8 scheduled meanwhile, such as a
    // young-generation collection (2–5 ms after a Stop) whose memory the exit frees anyway.
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`gatehouse hook: internal error: ${String(err)}\n`);
    process.exitCode = failClosedArg ? 2 : 0;
  },
);
