// The one sanitiser for agent-derived text a person reads (a terminal, the TUI, the dashboard):
// nothing it prints can move the cursor, recolour, reorder, hide or fake text. Controls and
// invisible characters become visible escapes; lookalike words and non-ASCII hosts are flagged.

/**
 * What is escaped as `<U+XXXX>`: C0 and C1 controls (terminal escapes start there: ESC, CSI
 * U+009B), DEL, lone surrogates, and every default-ignorable or format character: zero-width
 * characters, bidi overrides and isolates, tag characters, variation selectors, and the Hangul
 * fillers that measure 0 columns but draw 2. Tab and line breaks are handled on their own.
 */
// eslint-disable-next-line no-control-regex
const ESCAPED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}]|\p{Surrogate}/gu;

/** Line breaks of every kind, U+2028 and U+2029 included. */
const LINE_BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/g;

/**
 * A word (letters, marks, digits and the characters hosts and names are made of) with the flag
 * a previous pass gave it, or a flag bracket on its own.
 */
// The flag brackets are ⟨ (U+27E8) and ⟩ (U+27E9), written escaped: the hook bundle must stay ASCII.
const WORD = /([\p{L}\p{M}\p{N}._-]+)(\u27e8![^\u27e8\u27e9]*\u27e9)?|[\u27e8\u27e9]/gu;
const LATIN = /\p{Script=Latin}/u;
/** Scripts with letters that look like Latin ones (`і`, `о`, `ѕ`, `α`, `ο`). */
const LOOKALIKE_NAMES = ['Cyrillic', 'Greek', 'Armenian', 'Cherokee'] as const;
/** Each lookalike script's matcher, made at the first mixed word: a Stop's message seldom has one, and the four cost it 0.2 ms. */
let lookalikeScripts: readonly [name: string, re: RegExp][] | null = null;
const LOOKALIKE = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u;
const NON_ASCII = /[^\p{ASCII}]/u;
/** A word shaped like a host name: two or more labels. */
const HOST_LIKE = /^[^.]+(\.[^.]+)+$/;

const escape = (ch: string): string => `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;

/** The scripts of a word that mixes Latin with a lookalike script, e.g. `Latin+Cyrillic`; null otherwise. */
function mixedScripts(word: string): string | null {
  if (!LATIN.test(word) || !LOOKALIKE.test(word)) return null;
  lookalikeScripts ??= LOOKALIKE_NAMES.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')]);
  return ['Latin', ...lookalikeScripts.filter(([, re]) => re.test(word)).map(([name]) => name)].join('+');
}

/** The ASCII form of a non-ASCII host (`xn--…`), or null when it is not one. */
function asciiHost(word: string): string | null {
  if (!NON_ASCII.test(word) || !HOST_LIKE.test(word)) return null;
  try {
    const host = new URL(`http://${word}/`).hostname;
    return host !== word ? host : null;
  } catch {
    return null;
  }
}

/** Where a host begins: after a URL's scheme or a user name (`https://…`, `git@…`). */
const BEFORE_HOST = /(?::\/\/|@)$/;

/**
 * Flags each lookalike word and each non-ASCII host of a URL or address once:
 * `https://gіthub.com⟨!mixed scripts Latin+Cyrillic, host xn--gthub-n2e.com⟩`. A file name such as
 * `josé.txt` is no host and is left alone. The text may carry flag brackets of its own, to pass
 * a lookalike off as checked (`gіthub.com⟨!ok⟩`): only a flag that is exactly the one this word
 * gets is kept (so a second pass changes nothing); every other bracket is escaped.
 */
function flagWords(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(WORD, (whole: string, word: string | undefined, flag: string | undefined, at: number) => {
    if (word === undefined) return escape(whole);
    const host = BEFORE_HOST.test(text.slice(Math.max(0, at - 3), at)) ? asciiHost(word) : null;
    const notes = [mixedScripts(word), host].flatMap((n, i) => (n === null ? [] : [i === 0 ? `mixed scripts ${n}` : `host ${n}`]));
    const own = notes.length === 0 ? '' : `⟨!${notes.join(', ')}⟩`;
    if (flag === undefined || flag === own) return `${word}${own}`;
    return `${word}${own}${flag.replace(/[\u27e8\u27e9]/gu, escape)}`;
  });
}

/** One line made safe: invisible and control characters escaped, lookalikes flagged; a tab shown as `<TAB>` unless `tabs` keeps it (it only moves right). */
function safeLine(line: string, tabs = false): string {
  return flagWords((tabs ? line : line.replace(/\t/g, '<TAB>')).replace(ESCAPED, escape));
}

/**
 * Agent-supplied text made safe to show on one line, whole: line breaks become ` ↵ `, controls
 * and invisible characters visible escapes (`<U+001B>`), lookalike words and non-ASCII hosts
 * flagged. Nothing is dropped or cut, and applying it twice changes nothing more.
 * @example safeForDisplay('ls\nrm -rf ~\u001b[2K') // 'ls ↵ rm -rf ~<U+001B>[2K'
 */
export function safeForDisplay(text: string): string {
  return safeLine(text.replace(LINE_BREAK, ' ↵ '));
}

/**
 * Agent-supplied text that keeps its lines (a check's output, a list of files), each line made
 * safe as {@link safeForDisplay} does (tabs kept: output and config lines use them, and a tab can
 * only move right) and started with `prefix`, so no line of it can pass for a line Gatehouse
 * printed itself.
 * @example framed('PASSED\nok', '    │ ') // '    │ PASSED\n    │ ok'
 */
export function framed(text: string, prefix: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => `${prefix}${safeLine(line, true)}`)
    .join('\n');
}

/** Characters a path is shown bare with; anything else and it is quoted. */
const PLAIN_PATH = /^[\w./@+,:=~-]+$/;

/**
 * A file name as a verdict shows it: bare when it is plain, else quoted as JSON (which escapes
 * quotes, backslashes and controls) and made safe, so a name cannot end the line or draw text.
 * @example shownPath('src/a.ts') // 'src/a.ts'
 * @example shownPath('a\n PASSED') // '"a\\n PASSED"'
 */
export function shownPath(path: string): string {
  return PLAIN_PATH.test(path) ? path : safeForDisplay(JSON.stringify(path));
}

/**
 * JSON text with every character a terminal could act on escaped (`\u009b`, `\u202e`, `\u2028`),
 * not only the C0 controls `JSON.stringify` escapes; it parses to the same value.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u2028\u2029\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}]|\p{Surrogate}/gu, (ch) => {
    let out = '';
    // An astral character (a tag character) is two UTF-16 units, each escaped.
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
