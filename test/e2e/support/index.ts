// The end-to-end harness: a scripted stub model, a runner for the real agent binary, and
// throwaway projects.
export { claudeBinary, runClaude } from '../../../src/runtime/doctor/run/claude-run.js';
export { lastUserText, say, tool, toolResults } from '../../../src/runtime/doctor/stub/messages-api.js';
export { startStubModel, type RecordedRequest, type StubModel } from '../../../src/runtime/doctor/stub/stub-model.js';
export { makeTempProject, nodeCommand, type TempProject } from './temp-project.js';
