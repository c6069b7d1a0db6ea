// Syntax colouring for the code on an approval card: comments, strings, numbers and keywords,
// by the file's extension, one line at a time. Tokens become spans with text, never HTML.
import { h } from './dom.js';

/** How one family of languages writes comments, strings and keywords. */
interface Grammar {
  line: string | null;
  block: [string, string] | null;
  quotes: string;
  keywords: ReadonlySet<string>;
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(' '));

const C_LIKE = words(
  'abstract as async await break case catch class const continue default defer delete do else enum export extends false final finally fn for func function go if impl implements import in instanceof interface let match mod mut new nil null package private protected pub public return static struct super switch this throw throws trait true try type typeof undefined use var void while yield',
);
const PYTHON = words(
  'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield',
);
const SHELL = words('case do done elif else esac export fi for function if in local readonly return then until while');

const GRAMMARS: Readonly<Record<string, Grammar>> = {
  c: { line: '//', block: ['/*', '*/'], quotes: '"\'`', keywords: C_LIKE },
  hash: { line: '#', block: null, quotes: '"\'', keywords: PYTHON },
  shell: { line: '#', block: null, quotes: '"\'', keywords: SHELL },
  json: { line: null, block: null, quotes: '"', keywords: words('true false null') },
  css: { line: null, block: ['/*', '*/'], quotes: '"\'', keywords: words('') },
};

/** Which grammar a file's extension gets; none for prose and unknown kinds. */
const BY_EXTENSION: Readonly<Record<string, keyof typeof GRAMMARS>> = {
  js: 'c',
  mjs: 'c',
  cjs: 'c',
  jsx: 'c',
  ts: 'c',
  tsx: 'c',
  mts: 'c',
  cts: 'c',
  go: 'c',
  rs: 'c',
  java: 'c',
  kt: 'c',
  swift: 'c',
  c: 'c',
  h: 'c',
  cc: 'c',
  cpp: 'c',
  hpp: 'c',
  cs: 'c',
  scala: 'c',
  py: 'hash',
  rb: 'hash',
  toml: 'hash',
  yaml: 'hash',
  yml: 'hash',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  json: 'json',
  css: 'css',
  scss: 'css',
};

/** The grammar for a path (by extension), `json` for the input of a tool, or null. */
export function grammarFor(path: string): string | null {
  if (path === '(json)') return 'json';
  if (path === '(shell)') return 'shell';
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext === undefined ? null : (BY_EXTENSION[ext] ?? null);
}

const IDENT = /[A-Za-z_$][\w$]*/y;
const NUMBER = /(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b/y;

/**
 * One line as text and coloured spans (`tok-com`, `tok-str`, `tok-num`, `tok-kw`).
 * @example highlightLine('const a = 1; // one', 'c') // [span.tok-kw "const", " a = ", span.tok-num "1", "; ", span.tok-com "// one"]
 */
export function highlightLine(line: string, grammar: string | null): (Node | string)[] {
  const g = grammar === null ? undefined : GRAMMARS[grammar];
  if (g === undefined) return [line];
  const out: (Node | string)[] = [];
  let plain = '';
  const emit = (cls: string, text: string): void => {
    if (plain !== '') out.push(plain);
    plain = '';
    out.push(h('span', { class: cls }, text));
  };
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (g.line !== null && line.startsWith(g.line, i)) {
      emit('tok-com', line.slice(i));
      break;
    }
    if (g.block !== null && line.startsWith(g.block[0], i)) {
      const end = line.indexOf(g.block[1], i + g.block[0].length);
      const stop = end < 0 ? line.length : end + g.block[1].length;
      emit('tok-com', line.slice(i, stop));
      i = stop;
      continue;
    }
    if (g.quotes.includes(ch)) {
      let j = i + 1;
      while (j < line.length && line[j] !== ch) j += line[j] === '\\' ? 2 : 1;
      const stop = Math.min(line.length, j + 1);
      emit('tok-str', line.slice(i, stop));
      i = stop;
      continue;
    }
    const prev = i === 0 ? '' : line[i - 1]!;
    if (/[0-9]/.test(ch) && !/[\w$]/.test(prev)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(line);
      if (m !== null) {
        emit('tok-num', m[0]);
        i += m[0].length;
        continue;
      }
    }
    if (/[A-Za-z_$]/.test(ch) && !/[\w$]/.test(prev)) {
      IDENT.lastIndex = i;
      const m = IDENT.exec(line)!;
      if (g.keywords.has(m[0])) emit('tok-kw', m[0]);
      else plain += m[0];
      i += m[0].length;
      continue;
    }
    plain += ch;
    i++;
  }
  if (plain !== '') out.push(plain);
  return out;
}
