// Maps a core verdict to what Gemini CLI understands: exit 2 with the reason on stderr
// refuses a tool call (the model sees "Tool execution blocked: <reason>") or makes the
// agent retry at AfterAgent; allow is a silent exit 0.
export { exitTwoOutput as geminiOutput } from '../exit-two-output.js';
