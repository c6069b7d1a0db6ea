// Maps a core verdict to what Gemini CLI understands: exit 2 with the reason on stderr
// refuses a tool call (the model sees "Tool execution blocked: <reason>") or makes the
// agent retry at AfterAgent; an allow is exit 0, with
// {"systemMessage"} for the user when it carries a note.
export { exitTwoOutput as geminiOutput } from '../exit-two-output.js';
