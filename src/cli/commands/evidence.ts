// `gatehouse evidence list|show|verify|export`: the signed evidence bundles sealed for every
// completion verdict and refused write, verifiable offline against a trusted key.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { safeForDisplay } from '../../core/display.js';
import { EVIDENCE_ID_RE } from '../../runtime/evidence/seal.js';
import type { EvidenceStatement } from '../../runtime/evidence/statement.js';
import type { SandboxRecord } from '../../core/sandbox.js';
import { exportEvidence, listEvidence, loadEvidence, verifyEvidenceFile } from '../../runtime/evidence/store.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson, projectStateFor } from '../context.js';
import { bundleFile, locateEvidence } from '../locate.js';
import { readTrustedKey } from './audit.js';
import { realpathSync } from 'node:fs';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';

type Flags = { worktree?: string; stateDir?: string; json?: boolean };
const withProject = (c: Command): Command => c.option('--worktree <dir>', 'project folder', '.').option('--state-dir <dir>', 'project state folder').option('--json', 'print as JSON');

/** The state folder holding bundle `id`: the project of the flags, else (from the current folder) any on the machine. */
const evidenceState = (id: string, flags: Flags): string => locateEvidence(id, projectStateFor(flags.worktree, flags.stateDir), flags);

/** Exit codes of `evidence verify`, as documented. */
const VERIFY_EXIT = { ok: 0, missing: 1, mismatch: 2, unsandboxed: 3 } as const;

/** The `evidence` command group. */
export function evidenceCommand(): Command {
  const evidence = new Command('evidence').description('signed evidence bundles (in-toto statements in DSSE envelopes)');

  withProject(evidence.command('list'))
    .description('list the evidence bundles of this project, oldest first')
    .action((flags: Flags) => {
      const items = listEvidence(projectStateFor(flags.worktree, flags.stateDir));
      if (flags.json) return printJson(items);
      if (items.length === 0) return void process.stdout.write('no evidence yet\n');
      for (const e of items) process.stdout.write(`${e.id}  ${e.sealed_at}  ${e.session_id}  ${e.kind.padEnd(18)} ${e.where.padEnd(14)} ${e.verdict}\n`);
    });

  withProject(evidence.command('show'))
    .description('print one bundle: what it records and how to verify it (--json: the whole bundle and the statement it signs)')
    .argument('<id>', 'receipt id (ev-…), found from any folder')
    .action((id: string, flags: Flags) => {
      const r = loadEvidence(evidenceState(id, flags), id);
      if (!r.ok) throw new UserError(r.reason);
      if (flags.json) return printJson(r.value);
      process.stdout.write(describeEvidence(r.value.statement));
    });

  withProject(evidence.command('verify'))
    .description('verify a bundle (by id, or an exported file) against a trusted public key')
    .argument('<id-or-file>', 'receipt id (found from any folder) or path to a bundle / export file')
    .requiredOption('--key <pub.pem>', 'trusted public key (from `gatehouse keys show`, obtained separately)')
    .option('--require-sandbox', 'also require that the session ran sandboxed (`gatehouse run --sandbox`): only then could the agent not read the signing key')
    .addHelpText('after', '\nExit status: 0 verified, 1 no such bundle, 2 mismatch (signature, subjects or anchoring), 3 verified but the session was not sandboxed (with --require-sandbox).')
    .action((target: string, flags: Flags & { key: string; requireSandbox?: boolean }) => {
      const key = readTrustedKey(flags.key);
      let file = resolve(target);
      if (EVIDENCE_ID_RE.test(target) && !existsSync(file)) file = bundleFile(evidenceState(target, flags), target);
      if (!existsSync(file)) {
        process.stderr.write(`gatehouse: no evidence bundle ${target}; see \`gatehouse evidence list\`\n`);
        process.exitCode = VERIFY_EXIT.missing;
        return;
      }
      const check = verifyEvidenceFile(file, key);
      const refused = check.ok && flags.requireSandbox === true && !check.sandboxed;
      if (flags.json) printJson(refused ? { ...check, ok: false, problems: [UNSANDBOXED] } : check);
      else if (refused) process.stdout.write(`NOT SANDBOXED: ${target}\n  - ${UNSANDBOXED}\n`);
      else if (check.ok) {
        const note = check.sandboxed
          ? sandboxNote(check.sandbox)
          : '  note: the session was not sandboxed, so the agent could read the signing key; this proves what the key signed, not that the agent did not sign it\n';
        process.stdout.write(`verified: ${target}\n${note}`);
      } else process.stdout.write(`MISMATCH: ${target}\n${check.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      process.exitCode = refused ? VERIFY_EXIT.unsandboxed : check.ok ? VERIFY_EXIT.ok : VERIFY_EXIT.mismatch;
    });

  withProject(evidence.command('export'))
    .description('write a self-contained bundle file (envelope, blobs, proof) that `evidence verify FILE` checks anywhere')
    .argument('<id>', 'receipt id (ev-…), found from any folder')
    .option('--out <file>', 'output file (default: <id>.evidence.json in the current folder)')
    .action((id: string, flags: Flags & { out?: string }) => {
      const out = resolve(flags.out ?? `${id}.evidence.json`);
      const r = exportEvidence(evidenceState(id, flags), id, out);
      if (!r.ok) throw new UserError(r.reason, EXIT.failure);
      if (flags.json) printJson(r.value);
      else process.stdout.write(`${r.value.file}\n`);
    });

  evidence
    .command('fetch')
    .description("write a bundle from the team store (any machine's) as a self-contained file that `evidence verify FILE` checks")
    .argument('<id>', 'receipt id (ev-…), as the team dashboard lists it')
    .option('--store <url>', 'the team store (default: store: in gatehouse.yaml, else GATEHOUSE_STORE)')
    .option('--worktree <dir>', 'project folder whose gatehouse.yaml names the store', '.')
    .option('--out <file>', 'output file (default: <id>.evidence.json in the current folder)')
    .option('--json', 'print where it was written and where it came from as JSON')
    .addHelpText('after', '\nExit status: 0 written, 1 no such bundle in the store, 2 usage, 69 the team store cannot be used.')
    .action(async (id: string, flags: { store?: string; worktree: string; out?: string; json?: boolean }) => {
      if (!EVIDENCE_ID_RE.test(id)) throw new UserError(`"${id}" is not an evidence id (ev-<yyyymmddThhmmssZ>-<16 hex>)`, EXIT.usage);
      // The config parser and the team store's client, loaded only for this command.
      const [{ loadConfig }, { fetchEvidence }, { openStore }, { settingOrExit, teamStoreSpec }] = await Promise.all([
        import('../../runtime/config.js'),
        import('../../runtime/store/evidence-rows.js'),
        import('../../runtime/store/pg-connect.js'),
        import('../team-store.js'),
      ]);
      let configured = null;
      if (flags.store === undefined) {
        let root: string | null = null;
        try {
          root = realpathSync(resolve(flags.worktree));
        } catch {
          root = null;
        }
        const config = root === null ? null : loadConfig({ root });
        if (config !== null && !config.ok) throw new UserError(config.reason);
        configured = config?.value.store ?? null;
      }
      const spec = settingOrExit(teamStoreSpec(flags.store, configured, process.env));
      if (spec === null) throw new UserError('no team store is set: give --store postgres://…, or set store: in gatehouse.yaml or GATEHOUSE_STORE', EXIT.usage);
      const opened = await openStore(spec, { max: 1 });
      if (!opened.ok) throw new UserError(opened.reason.replace(/; to run on this machine.*$/, '.'), EXIT.storeUnavailable);
      try {
        const doc = await fetchEvidence(opened.value.pool, id);
        if (!doc.ok) throw new UserError(doc.reason, EXIT.failure);
        const out = resolve(flags.out ?? `${id}.evidence.json`);
        writeFileAtomic(out, `${JSON.stringify(doc.value, null, 2)}\n`);
        if (flags.json) printJson({ file: out, ...doc.value.origin, blobs: Object.keys(doc.value.blobs).length });
        else process.stdout.write(`${out}\n`);
      } finally {
        await opened.value.close();
      }
    });

  return evidence;
}

/** Why `--require-sandbox` refuses a verified bundle. */
const UNSANDBOXED = 'the signature and anchoring verify, but the session was not sandboxed: the agent could read the signing key, so it could have signed this itself';

/** The sandbox a verified bundle names, for a person. */
function sandboxNote(s: SandboxRecord | null): string {
  if (s === null) return '  sandboxed\n';
  return `  sandboxed: ${s.engine} ${s.version}, network ${s.network}, writable ${s.writable.map(safeForDisplay).join(', ')}\n`;
}

/** One bundle for a person: what was decided, by what, when, over how many subjects, and how to check it. */
function describeEvidence(statement: EvidenceStatement): string {
  const p = statement.predicate;
  const show = (v: string | null): string => (v === null ? '—' : safeForDisplay(v));
  const rows: [string, string][] = [
    ['receipt', show(p.receipt_id)],
    ['session', `${show(p.session_id)} (agent ${show(p.agent)})`],
    ['kind', `${show(p.kind)}, ${show(p.where)}`],
    ['verdict', show(p.verdict)],
    ['decided_by', show(p.decided_by)],
    ['sealed_at', show(p.sealed_at)],
    ['subjects', String(statement.subject.length)],
  ];
  if (p.write !== null) rows.push(['refused', `${show(p.write.tool)} of ${p.write.targets.map(show).join(', ')}`]);
  if (!p.sandboxed) rows.push(['sandboxed', 'no: the agent could read the signing key']);
  else if (p.sandbox) rows.push(['sandboxed', `${show(p.sandbox.engine)} ${show(p.sandbox.version)}, network ${show(p.sandbox.network)}`]);
  const body = rows.map(([k, v]) => `${k.padEnd(11)}${v}\n`).join('');
  const id = show(p.receipt_id);
  return `${body}verify it:  gatehouse evidence verify ${id} --key PUB.pem   (the public key from \`gatehouse keys show\`, obtained separately)\nthe statement as JSON: gatehouse evidence show ${id} --json\n`;
}
