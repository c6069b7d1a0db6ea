// What every stop hook is told about the stop: the JSON object written to its stdin.
// One shape for operator shell hooks and the goal gate, so a hook script serves both.

/** The stop being checked, as a hook sees it on stdin. */
export interface StopHookContext {
  /** The model's last message of the turn. */
  final_text: string;
  /** Model round-trips in this turn so far. */
  iterations: number;
  tool_calls_made: number;
  /** Why the model stopped, as the agent reports it (e.g. `end_turn`). */
  stop_reason: string;
  session_id: string;
}

/**
 * The stdin payload: exactly the five context fields, whatever else `ctx` carries.
 * @example child.stdin.end(stopHookPayload(ctx))
 */
export function stopHookPayload(ctx: StopHookContext): string {
  const { final_text, iterations, tool_calls_made, stop_reason, session_id } = ctx;
  return JSON.stringify({ final_text, iterations, tool_calls_made, stop_reason, session_id });
}
