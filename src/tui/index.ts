// The terminal UI: `runTui` for the CLI command, and the panel itself for embedding.
// Everything else in this folder is a part of the panel.
export { ApprovalsPanel } from './approvals-panel.js';
export type { ApprovalsPanelProps } from './approvals-panel.js';
export { runTui } from './run-tui.js';
export type { RunTuiOptions } from './run-tui.js';
