// The end-to-end harness: a scripted stub model, a runner for the real agent binary, and
// throwaway projects.
export { claudeBinary, runClaude, CLAUDE_CODE_VERSION, type ClaudeRun, type RunClaudeOptions, type StreamMessage } from './claude-run.js';
export { lastUserText, say, tool, toolResults, turn, type SentToolResult, type Turn } from './messages-api.js';
export { startStubModel, type RecordedRequest, type Script, type StubModel } from './stub-model.js';
export { makeTempProject, nodeCommand, shellQuote, type TempProject } from './temp-project.js';
