// The WebSocket close codes of the `/ws` endpoint, shared by the gateway that closes with
// them and the dashboard that reads them from `CloseEvent.code`.

/** Close codes in use (4000–4999 are for applications; 1000 and 1001 are the standard ones). */
export const CLOSE_CODES = {
  /** No valid token within the auth window, or a call before auth. */
  unauthorized: 4401,
  /** The client stopped reading and its must-deliver backlog hit the hard cap. */
  too_slow: 4408,
  /** The gateway is shutting down (the standard "going away"). */
  going_away: 1001,
  /** The client closes on purpose (sign-in again, page stopped). */
  normal: 1000,
  /** The client gave up on a connection whose setup (auth, subscribe, reload) failed, to reconnect. */
  setup_failed: 4000,
} as const;
