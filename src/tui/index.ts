// The terminal UI: `runTui` for the CLI command. Everything else in this folder is a part of the panel.
export { runTui } from './run-tui.js';
