// The agent-neutral event the core decides on. Adapters translate each agent's
// own hook JSON into one of these; the core never sees an agent's tool names.
import type { CallView } from './tool-view.js';

/** What a tool call does, as far as the gates care. */
export type ToolKind = 'write' | 'shell' | 'read' | 'other';

/** A tool call the agent is about to make. */
export interface PreToolEvent {
  kind: 'pre_tool';
  /** The agent's own tool name, kept for messages and audit only. */
  tool: string;
  toolKind: ToolKind;
  /** Paths the call writes, as the agent gave them (absolute or relative to `cwd`); for a shell call, writes the adapter knows of beyond the shell analysis. */
  targets: string[];
  /** Set when the call writes but its targets cannot be read from its input (e.g. a malformed patch): the write gate refuses it. */
  unreadable?: string;
  /** The tool's arguments as the agent sent them (hashed by the tool-loop watchdog, never stored). */
  input: unknown;
  cwd: string;
  /** The agent's own id of this call (Claude Code's `tool_use_id`), when it sends one. */
  callId?: string;
  /** How the call is shown to a person asked to approve it, as its adapter reads the tool. */
  view?: CallView;
}

/** A tool call has finished. */
export interface PostToolEvent {
  kind: 'post_tool';
  tool: string;
  failed: boolean;
  cwd: string;
}

/** The agent wants to end its turn. */
export interface StopEvent {
  kind: 'stop';
  cwd: string;
  lastMessage: string | null;
  transcriptPath: string | null;
}

/** Any event a gate decides on. */
export type GateEvent = PreToolEvent | PostToolEvent | StopEvent;
