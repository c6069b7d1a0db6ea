// Maps a core verdict to what Codex CLI understands: exit 2 with the reason on stderr refuses
// a tool call (the model is told "Command blocked by PreToolUse hook: <reason>") or, at Stop,
// makes Codex continue the turn with the reason; an allow is exit 0, with
// {"systemMessage"} for the user when it carries a note.
export { exitTwoOutput as codexOutput } from '../exit-two-output.js';
