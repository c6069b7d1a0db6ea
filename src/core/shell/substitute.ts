// Puts what the command line itself says into a simple command before it is judged: words whose
// expansion is known exactly become literal words, and assignments record the values they give.
import type { Assignment, Word } from './ast.js';
import { expandWord, fieldText, type ExpandEnv, type Field } from './expand.js';

/** A literal word with the given value. */
function literal(value: string): Word {
  return { text: value, value, literal: true, splits: false, evaluates: false, subs: [] };
}

/**
 * The words after every expansion known exactly (`~`, `$HOME`, variables assigned earlier in the
 * line, brace lists): `X=/tmp; rm -rf $X` is judged as `rm -rf /tmp`. Other words stay as written.
 * @example substituteWords(words('echo ~/a'), env) // ['echo', '/home/u/a'] when HOME is /home/u
 */
export function substituteWords(words: readonly Word[], env: ExpandEnv): Word[] {
  const out: Word[] = [];
  for (const w of words) {
    if (w.literal) {
      out.push(w);
      continue;
    }
    const e = expandWord(w, env);
    const texts = e.fields.map(fieldText);
    if (e.exact && texts.every((t): t is string => t !== null)) out.push(...texts.map(literal));
    else out.push(w);
  }
  return out;
}

/** A redirection's target after known expansions: bash writes to it only if it is exactly one word. */
export function substituteTarget(w: Word, env: ExpandEnv): Word {
  if (w.literal) return w;
  const e = expandWord(w, env);
  const text = e.fields.length === 1 && e.exact ? fieldText(e.fields[0]!) : null;
  return text === null ? w : literal(text);
}

/** The values an assignment gives its variable, or null when they are not known. */
export function assignedValue(a: Assignment, env: ExpandEnv): Field[] | null {
  if (a.form === 'array' || a.form === 'element') return null;
  const e = expandWord(a.value, env, true);
  if (e.fields.some((f) => f.some((p) => p.kind === 'any'))) return null;
  if (a.form !== 'append') return e.fields.length === 0 ? [[]] : e.fields;
  const before = env.lookup(a.name);
  if (!before) return null;
  return before.flatMap((b) => e.fields.map((f) => [...b, ...f]));
}

/** The value part of a `NAME=value` argument (`export NAME=value`), as a word of its own. */
export function valueWord(w: Word): Word | null {
  const eq = w.value.indexOf('=');
  const teq = w.text.indexOf('=');
  if (eq === -1 || teq === -1) return null;
  return { text: w.text.slice(teq + 1), value: w.value.slice(eq + 1), literal: w.literal, splits: false, evaluates: w.evaluates, subs: w.subs };
}
