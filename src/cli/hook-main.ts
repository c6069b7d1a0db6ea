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
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`gatehouse hook: internal error: ${String(err)}\n`);
    process.exitCode = failClosedArg ? 2 : 0;
  },
);
