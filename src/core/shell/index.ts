// The shell analysis: a bash parser, a deny/approve/ask classifier and the files a command writes.
// Callers outside this folder import from here only.
export { analyzeShell } from './classify.js';
export type { ShellAnalysis, ShellClass, ShellContext } from './classify.js';
export { MAX_COMMAND_LENGTH, parseShell } from './parser.js';
export { MAX_NESTING_DEPTH, MAX_WORD_LENGTH } from './lexer.js';
export type * from './ast.js';
export type { WriteTarget } from './write-target.js';
