// Starting and ending a gated session: compile config + flags into the policy, record the
// baseline, render the agent's hooks; and later remove exactly them and run the final check.
import { mkdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { splitCommand } from '../core/argv.js';
import { POLICY_VERSION, type Policy, type ProducerSpec, type TurnPolicy } from '../core/policy.js';
import { fail, ok, type Result } from '../core/result.js';
import { isInside, relativeInside } from '../core/write-gate.js';
import { CONFIG_FILE_NAMES, loadConfig } from '../runtime/config.js';
import { recordBaseline, splitTexts, type Baseline } from '../runtime/scope-baseline.js';
import { protectedPaths, watchedOutside } from '../runtime/protected-paths.js';
import { SessionStore, type SessionMeta, type TransportRecord } from '../runtime/session-store.js';
import { createWarmSecret } from '../runtime/warm-secret.js';
import { recordSessionPointer } from '../runtime/session-index.js';
import { writeProjectRecord } from '../runtime/project-record.js';
import { chooseTransport, type TransportChoice, type WarmTransport } from '../adapters/hook-transport.js';
import { hookBudgets } from './hook-budget.js';
import { resolveProjectState, stateBase } from '../runtime/state-base.js';
import type { Capabilities, RenderedFile } from '../adapters/adapter.js';
import { auditLogFor, osUserActor } from '../runtime/recorder.js';
import { sha256Hex } from '../core/crypto/sha256.js';
import { canonicalJson } from '../core/crypto/canonical-json.js';
import { loadExtensionHooks } from '../runtime/stop-hooks/extension-config.js';
import { PROJECT_HOOKS_FILE } from '../runtime/stop-hooks/extension-config.js';
import { clampProfile } from '../core/turn/context.js';
import { compileAlwaysAllow, type AlwaysAllowRule } from '../core/approvals/always-allow.js';
import { configAlwaysRules } from '../runtime/approvals/always-rules.js';
import { compileProfileSpec } from '../core/approvals/profiles.js';
import { adapterFor, capabilitiesFor, parseAgentName } from '../adapters/registry.js';
import { prepareSessionSandbox, sandboxTools, type SandboxOffer, type SessionSandbox } from './session-sandbox.js';
import { stopChainNotes } from './stop-chain.js';
import { sandboxRecord } from '../core/sandbox.js';
import { claudeOutput } from '../adapters/claude/output.js';
import { isoTime } from '../core/iso-time.js';

/** Bytes of output kept per producer: enough for any useful failure tail, bounded on disk. */
const OUTPUT_CAP_BYTES = 1024 * 1024;
/** Producer name rule, shared with the config schema. */
const PRODUCER_NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;
/** Default producer timeout for `--require` (same as the config default). */
const DEFAULT_PRODUCER_TIMEOUT_S = 300;

/** Everything `session start` needs. */
export interface StartOptions {
  /** The agent as the user named it (any case); `none` gates nothing in-session; anything else unknown is refused. */
  agent: string;
  worktree: string;
  id?: string;
  allow: string[];
  /** `NAME=COMMAND` strings; COMMAND is split into argv without a shell. */
  require: string[];
  configFile?: string;
  /** Overrides the project state dir entirely. */
  stateDir?: string;
  /** Permission profile name (overrides the config's `permissions.profile`). */
  profile?: string;
  /** The session's objective and its gate command (operator-supplied; fail-closed). */
  goal?: { objective: string; gateCommand: string };
  env: NodeJS.ProcessEnv;
  nodePath: string;
  hookBundle: string;
  /** How the rendered hooks reach the gate; default `auto` (warm when a supervisor is up). */
  transport?: TransportChoice;
  /** Offered by launchers that start the agent themselves; without it a config that asks for a sandbox is refused. */
  sandbox?: SandboxOffer;
}

/** A started session, with the in-memory copies of its policy and baseline the final check uses. */
export interface StartedSession {
  store: SessionStore;
  policy: Policy;
  baseline: Baseline | null;
  /** What render did, to undo exactly it at the end. */
  renderRecords: RenderedFile[];
  /** SHA-256 of policy.json as written (baked into the hook commands). */
  policyDigest: string;
  capabilities: Capabilities;
  rendered: string[];
  transport: TransportRecord;
  /** The session's sandbox, null when it runs as the user. The launcher runs the agent with `sandbox.spec`. */
  sandbox: SessionSandbox | null;
  /** What the config's `verifiers.order` leaves out or adds, to show once at start. */
  notes: string[];
}

/** Parses `NAME=COMMAND` into a required producer. */
function parseRequire(spec: string): Result<ProducerSpec> {
  const eq = spec.indexOf('=');
  if (eq <= 0) return fail(`--require ${JSON.stringify(spec)} must look like NAME=COMMAND, e.g. --require test="npm test"`);
  const name = spec.slice(0, eq);
  if (!PRODUCER_NAME_RE.test(name)) return fail(`--require name ${JSON.stringify(name)} must be 1-64 letters, digits, '.', '_' or '-'`);
  const argv = splitCommand(spec.slice(eq + 1));
  if (!argv.ok) return fail(`--require ${name}: ${argv.reason}`);
  return ok({ name, kind: 'check', command: argv.value, required: true, timeout_s: DEFAULT_PRODUCER_TIMEOUT_S });
}

function validateAllow(pattern: string): string | null {
  if (pattern.trim() === '') return 'an allow pattern is empty';
  if (isAbsolute(pattern)) return `allow pattern ${JSON.stringify(pattern)} is absolute; write it relative to the worktree`;
  if (pattern.split('/').includes('..')) return `allow pattern ${JSON.stringify(pattern)} contains '..'; patterns stay inside the worktree`;
  return null;
}

function newSessionId(): string {
  const now = isoTime().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${now}-${randomBytes(4).toString('hex')}`;
}

/** Compiles config and flags into a policy, records the baseline and renders the hooks. */
export async function startSession(opts: StartOptions): Promise<Result<StartedSession>> {
  // Every caller (CLI, dashboard, library) gets the same refusal: a typo must never mean "ungated".
  const agentName = parseAgentName(opts.agent);
  if (!agentName.ok) return agentName;
  const agent = agentName.value;
  let worktree: string;
  try {
    worktree = realpathSync(resolve(opts.worktree));
    if (!statSync(worktree).isDirectory()) return fail(`--worktree ${opts.worktree} is not a folder`);
  } catch {
    return fail(`--worktree ${opts.worktree} does not exist`);
  }
  const config = loadConfig({ root: worktree, ...(opts.configFile ? { file: resolve(opts.configFile) } : {}) });
  if (!config.ok) return fail(config.reason);
  const gate = config.value.gate;
  const turnConfig = config.value.turn;
  // Hooks the agent could edit mid-session are read once, here, and the file is protected.
  const extension = loadExtensionHooks(worktree, opts.env);
  if (extension.problems.length > 0) return fail(`cannot load extension stop hooks: ${extension.problems.join('; ')}`);
  const { profile } = clampProfile({
    ...(turnConfig.verifiers.repeat_threshold !== null ? { repeat_threshold: turnConfig.verifiers.repeat_threshold } : {}),
    ...(turnConfig.verifiers.halt_threshold !== null ? { halt_threshold: turnConfig.verifiers.halt_threshold } : {}),
    max_tool_calls: turnConfig.verifiers.max_tool_calls,
    failure_threshold: turnConfig.verifiers.failure_threshold,
  });
  const order = turnConfig.verifiers.order ?? null;
  const approvalsCfg = config.value.approvals;
  const permissionsCfg = config.value.permissions;
  // Rules and profiles are compiled here so a bad regex or profile fails the start, not a hook.
  const alwaysAllow: AlwaysAllowRule[] = configAlwaysRules(approvalsCfg.always_allow);
  const compiledRules = compileAlwaysAllow(alwaysAllow);
  if (!compiledRules.ok) return fail(`approvals.always_allow: ${compiledRules.reason}`);
  for (const [name, spec] of Object.entries(permissionsCfg.custom)) {
    const compiled = compileProfileSpec(name, spec);
    if (!compiled.ok) return fail(`permissions.custom.${name}: ${compiled.reason}`);
  }
  const goalCfg = opts.goal ? { objective: opts.goal.objective, gate_command: opts.goal.gateCommand, timeout_s: DEFAULT_PRODUCER_TIMEOUT_S } : turnConfig.verifiers.goal;
  const turn: TurnPolicy = {
    enabled: turnConfig.verifiers.enabled,
    order,
    ...profile,
    goal: goalCfg ? { text: goalCfg.objective, gate_command: goalCfg.gate_command, source: 'operator', timeout_s: goalCfg.timeout_s } : null,
    watch_all_tools: turnConfig.verifiers.enabled && ((order ?? ['tool_loop']).includes('tool_loop') || profile.max_tool_calls !== null || profile.failure_threshold !== null),
  };

  const allow = [...new Set([...gate.allow, ...opts.allow])];
  for (const p of allow) {
    const bad = validateAllow(p);
    if (bad) return fail(bad);
  }
  const producers = new Map<string, ProducerSpec>(gate.producers.map((p) => [p.name, p]));
  for (const spec of opts.require) {
    const r = parseRequire(spec);
    if (!r.ok) return fail(r.reason);
    producers.set(r.value.name, r.value);
  }

  // A sandbox asked for is never silently skipped: no launcher, no bwrap, or no user namespaces is a refusal.
  const sandboxCfg = config.value.sandbox;
  const tools = sandboxTools({ offer: opts.sandbox, config: sandboxCfg, configFile: config.value.file, agent, transport: opts.transport, env: opts.env });
  if (!tools.ok) return tools;
  const sandboxKit = tools.value;
  const stateDirRaw = resolveProjectState(worktree, opts.env, opts.stateDir);
  mkdirSync(stateDirRaw, { recursive: true, mode: 0o700 });
  const projectState = realpathSync(stateDirRaw);
  // Tells a supervisor of all projects (`serve --all`) which worktree this state folder is for.
  writeProjectRecord(projectState, worktree);
  const transport =
    sandboxKit !== null
      ? ok({ record: { kind: 'socket', supervisor_pid: process.pid } as TransportRecord, bash: null, client: null })
      : await chooseTransport(opts.transport ?? 'auto', projectState, opts.hookBundle, opts.env, { worktree, stateDir: opts.stateDir ? projectState : undefined });
  if (!transport.ok) return fail(transport.reason);
  const id = opts.id ?? newSessionId();
  const created = SessionStore.create(projectState, id);
  if (!created.ok) return fail(created.reason);
  const store = created.value;

  let rendered: RenderedFile[] = [];
  let sandbox: SessionSandbox | null = null;
  try {
    const adapter = adapterFor(agent);
    const configFiles = [...CONFIG_FILE_NAMES.map((n) => join(worktree, n)), join(worktree, PROJECT_HOOKS_FILE)];
    if (config.value.file) configFiles.push(config.value.file);
    const { protect, restorable } = protectedPaths({
      worktree,
      projectState,
      agentSettings: adapter?.settingsFiles(worktree, opts.env) ?? [],
      configFiles,
      hookBundle: opts.hookBundle,
      extra: gate.protect,
      allow,
      env: opts.env,
    });
    if (sandboxKit !== null && opts.sandbox !== undefined) {
      const prepared = await prepareSessionSandbox({
        tools: sandboxKit,
        offer: opts.sandbox,
        network: opts.sandbox.network ?? sandboxCfg.network,
        sessionId: id,
        projectState,
        worktree,
        allow,
        protect,
        hookBundle: opts.hookBundle,
        adapter,
        output: adapter?.output ?? claudeOutput,
        tokenEnv: approvalsCfg.tokens.flatMap((t) => (t.env !== undefined ? [t.env] : [])),
        hide: sandboxCfg.hide,
        env: opts.env,
      });
      if (!prepared.ok) throw new RenderError(prepared.reason);
      sandbox = prepared.value;
    }
    const inWorktree = (files: string[]): string[] => files.filter((f) => isInside(worktree, f)).map((f) => relativeInside(worktree, f));
    const scopeExclude = inWorktree(adapter?.renderTargets(worktree) ?? []);
    const agentRuntime = inWorktree(adapter?.runtimeFiles?.(worktree) ?? []);
    const producerList = [...producers.values()];
    const policy: Policy = {
      v: POLICY_VERSION,
      session_id: id,
      agent,
      worktree,
      state_dir: projectState,
      allow,
      protect,
      restorable,
      home: opts.env.HOME || homedir(),
      producers: producerList,
      sequential: gate.sequential,
      max_stop_blocks: gate.max_stop_blocks,
      output_cap_bytes: OUTPUT_CAP_BYTES,
      posture: gate.posture,
      scope_exclude: scopeExclude,
      agent_runtime: agentRuntime,
      record_allows: gate.record_allows,
      stop_hooks: turnConfig.stop_hooks,
      extension_hooks: extension.hooks,
      turn,
      approvals: { interactive: approvalsCfg.interactive, timeout_s: approvalsCfg.timeout_s, smart_auto_approve: approvalsCfg.smart_auto_approve, always_allow: alwaysAllow },
      permissions: { profile: opts.profile ?? permissionsCfg.profile ?? null, custom: permissionsCfg.custom },
      baseline_sha256: null,
      sandboxed: sandbox !== null,
      sandbox: sandbox?.spec ?? null,
      created_at: isoTime(),
    };
    // The baseline is taken before rendering and records the settings file as it was then (with
    // another session's hooks, if one runs here): while this session's hooks are in it the file
    // is left out of the check (scope_exclude), and once they are removed it must be back as it was.
    // A state folder inside the worktree is Gatehouse's, never part of the agent's scope.
    const stateRel = isInside(worktree, projectState) && projectState !== worktree ? [relativeInside(worktree, projectState)] : [];
    const baseline = allow.length > 0 ? await recordBaseline(worktree, { exclude: [...stateRel, ...agentRuntime], allow, watch: watchedOutside(opts.env) }) : null;
    if (baseline !== null) {
      // The files' texts apart: every refusal and Stop reads the baseline, only a hint the texts.
      const { kept, texts } = splitTexts(baseline);
      kept.texts_sha256 = store.writeJson('baselineText', texts, { compact: true });
      policy.baseline_sha256 = store.writeJson('baseline', kept, { compact: true });
    }
    // From here on the files are trusted only by these digests (the hook command carries the policy's).
    const policyDigest = store.writeJson('policy', policy);

    if (adapter) {
      const budgets = hookBudgets(policy);
      const r = await adapter.render({
        sessionId: id,
        worktree,
        projectState,
        nodePath: opts.nodePath,
        hookBundle: opts.hookBundle,
        stopTimeoutS: budgets.stopS,
        failClosed: policy.posture === 'fail-closed',
        // Every tool (Bash included) when the watchdog, the shell analysis of an allowlist, a profile or approvals need it.
        watchAllTools: turn.watch_all_tools || allow.length > 0 || approvalsCfg.interactive || policy.permissions.profile !== null,
        trackFailures: turn.enabled && turn.failure_threshold !== null,
        preToolTimeoutS: budgets.preToolS,
        warm: sandbox?.transport ?? warmTransport(transport.value, projectState, id),
        maxStopBlocks: policy.max_stop_blocks,
        policyDigest,
        env: opts.env,
      });
      if (!r.ok) throw new RenderError(r.reason);
      rendered = r.value;
    }
    const renderDigest = store.writeJson('render', rendered);
    const meta: SessionMeta = {
      id,
      agent,
      worktree,
      status: 'active',
      started_at: policy.created_at,
      ended_at: null,
      config_file: config.value.file,
      end_verdict: null,
      transport: transport.value.record,
    };
    store.writeJson('meta', meta);
    // Not best effort: `session check` trusts the session's files only by the digests recorded here.
    auditLogFor(projectState).append({
      type: 'session_started',
      actor: osUserActor(),
      session_id: id,
      data: {
        agent: policy.agent,
        worktree,
        policy_digest: sha256Hex(canonicalJson(policy)),
        policy_sha256: policyDigest,
        baseline_sha256: policy.baseline_sha256,
        render_sha256: renderDigest,
        sandboxed: policy.sandboxed,
        ...(sandbox !== null ? { sandbox: sandboxRecord(sandbox.spec) } : {}),
      },
    });
    // So `session end ID`, `evidence export` and the rest find this session from any folder.
    recordSessionPointer(stateBase(opts.env), { id, state_dir: projectState, worktree, started_at: policy.created_at });
    return ok({
      store,
      policy,
      baseline,
      renderRecords: rendered,
      policyDigest,
      capabilities: capabilitiesFor(agent),
      rendered: rendered.map((f) => f.file),
      transport: transport.value.record,
      sandbox,
      notes: [...config.value.warnings, ...stopChainNotes(policy)],
    });
  } catch (err) {
    // Nothing half-made stays behind: the session folder goes, and hooks already rendered come out.
    if (rendered.length > 0) adapterFor(agent)?.unrender(rendered);
    await sandbox?.close();
    rmSync(store.dir, { recursive: true, force: true });
    if (err instanceof RenderError) return fail(err.message);
    throw err;
  }
}

class RenderError extends Error {}

/** The warm hook's parts for a warm session (its secret is made here), null for a cold one. */
function warmTransport(t: { record: TransportRecord; bash: string | null; client: string | null }, projectState: string, id: string): WarmTransport | null {
  if (t.record.kind !== 'warm' || t.bash === null || t.client === null) return null;
  return { bash: t.bash, client: t.client, port: t.record.port, secretFile: createWarmSecret(projectState, id), ...(t.record.project === undefined ? {} : { project: t.record.project }) };
}
