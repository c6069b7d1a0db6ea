// The Claude Agent SDK hands its hook callbacks the same payloads Claude Code's command hooks
// read on stdin (`hook_event_name`, `tool_name`, `tool_input`, `cwd`, `transcript_path`), so
// the SDK adapter parses them with Claude Code's parser and tool table.
export { parseClaudeEvent as parseSdkEvent } from '../claude/event.js';
