// Maps a core verdict to what Qwen Code understands: exit 2 with the reason on stderr
// refuses a tool call or continues the turn at Stop; allow is a silent exit 0.
export { exitTwoOutput as qwenOutput } from '../exit-two-output.js';
