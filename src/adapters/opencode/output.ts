// Maps a core verdict to the plugin's contract: exit 2 with the reason on stderr, which the
// generated plugin throws, so OpenCode refuses the call and the message becomes the result.
export { exitTwoOutput as opencodeOutput } from '../exit-two-output.js';
