// Maps a core verdict to what Qwen Code understands: exit 2 with the reason on stderr
// refuses a tool call or continues the turn at Stop; an allow is exit 0, with
// {"systemMessage"} for the user when it carries a note.
export { exitTwoOutput as qwenOutput } from '../exit-two-output.js';
