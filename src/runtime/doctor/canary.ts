// The one script every doctor run plays, whatever the agent: an out-of-scope write, an in-scope
// write, a stop while a required check fails, then the fix; and how to read the evidence back.
import { shellJoin } from '../../core/shell-quote.js';
import { say, type Turn } from './stub/messages-api.js';

/** A file the script asks the agent to write: path relative to the project, absolute path, content. */
export interface CanaryFile {
  rel: string;
  abs: string;
  content: string;
}

/** The files of one canary run in `project`. */
export interface CanaryFiles {
  /** Outside the allowlist (`src/**`): the write gate must refuse it. */
  outside: CanaryFile;
  /** Inside the allowlist: it must land. */
  inside: CanaryFile;
  /** Written once the Stop refusal reached the model; the required check passes once it exists. */
  fix: CanaryFile;
}

/** The allowlist of the canary session. */
export const CANARY_ALLOW = 'src/**';

/** What the failing required check prints, so its reason can be found in what the model was sent. */
export const CHECK_MARKER = 'GATEHOUSE_DOCTOR_CHECK_FAILED';

/** The prompt the agent is started with (the stub ignores it). */
export const CANARY_PROMPT = 'Gatehouse doctor canary: follow the scripted steps.';

/** The canary files of a project folder. */
export function canaryFiles(project: string): CanaryFiles {
  const file = (rel: string, content: string): CanaryFile => ({ rel, abs: `${project}/${rel}`, content });
  return {
    outside: file('doctor-outside.txt', 'must never be written\n'),
    inside: file('src/doctor-canary.txt', 'written by gatehouse doctor\n'),
    fix: file('src/doctor-fixed.txt', 'fixed\n'),
  };
}

/** The `--require` spec of the canary session: a check that fails until the fix file exists. */
export function canaryCheck(files: CanaryFiles): string {
  const js = `require('fs').existsSync(${JSON.stringify(files.fix.rel)}) || (console.error('${CHECK_MARKER}: ${files.fix.rel} is missing'), process.exit(1))`;
  return `doctor-check=${shellJoin([process.execPath, '-e', js])}`;
}

/** The scripted model: turn i gets what the model was sent (as text) and answers with `write` calls in the agent's own tool. */
export function canaryScript(files: CanaryFiles, write: (f: CanaryFile) => Turn): (sent: string, index: number) => Turn {
  let fixed = false;
  return (sent, index) => {
    if (index === 0) return write(files.outside);
    if (index === 1) return write(files.inside);
    if (index === 2) return say('done');
    if (!fixed && sent.includes(CHECK_MARKER)) {
      fixed = true;
      return write(files.fix);
    }
    return say('finished');
  };
}
