// The sandbox a session runs in, as the policy records it: one shape (shape.ts), the type read from it.
// Apart from core/sandbox.ts, which the dashboard bundles and which needs none of this.
import { boolean, list, nullable, object, oneOf, optional, pair, text, type Infer } from './shape.js';

/** A sandboxed session's boundary; recorded in the policy, `session_started` and evidence. */
export const SandboxSpec = object({
  engine: oneOf(['bubblewrap']),
  /** `bwrap --version`, e.g. `0.8.0`. */
  version: text(),
  /** Absolute path of the bwrap binary. */
  bwrap: text(),
  /** `host` shares this machine's network, `none` has only its own loopback (core/sandbox.ts SANDBOX_NETWORKS). */
  network: oneOf(['host', 'none']),
  /** Absolute real paths the sandbox may write; everything else is read-only or hidden. */
  writable: list(text()),
  /** Paths inside writable ones that stay read-only (git control files, agent settings, Gatehouse's install). */
  read_only: list(text()),
  /** Folders that are not visible at all (an empty read-only folder in their place): the state, keys, tokens. */
  hidden_dirs: list(text()),
  /** Files that read as empty (`/dev/null` in their place). */
  hidden_files: list(text()),
  /**
   * Symbolic links made again inside a hidden folder, as `[target, path]`: a hidden `/run` keeps
   * its links (`/run/shm`, NixOS's `/run/current-system`). Absent in policies written before.
   */
  symlinks: optional(list(pair(text(), text()))),
  /** Host folder holding the supervisor's socket and refusal files, shown read-only at SANDBOX_SOCKET_DIR; null for checks. */
  socket_dir: nullable(text()),
  /** Start the sandbox in a new terminal session (setsid), so it cannot push keystrokes into the terminal (TIOCSTI). */
  new_session: boolean(),
  /** bwrap understands `--disable-userns` (0.8.0+): no user namespace can be made inside. */
  disable_userns: boolean(),
});
export type SandboxSpec = Infer<typeof SandboxSpec>;
