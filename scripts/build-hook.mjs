// Builds the hook's code (src/cli/hook-main.ts and everything it imports) into a few CommonJS
// scripts in dist/hook/, which dist/hook/hook.js loads through V8's code cache. An allowed write
// loads only the first: a cold hook pays for every byte it reads and every function it
// deserializes, and the code for Bash analysis, for sealing a refusal and for a Stop is most of
// the whole. Each later script holds the modules first reached from its roots by a dynamic
// import() and loads the first time such an import runs.
//
// Every source module is in exactly one script, so no module state is ever doubled. An import
// of a module another script holds becomes `require('gh-script:<file>#<module>')`, which the
// loader answers with that script's own instance of the module (src/runtime/code-cache.ts).
// Each file is ASCII (read as a one-byte string), starts with `//gh-sha256:<digest of the rest>`
// (which names its cache) and is wrapped in the CommonJS function, so V8 compiles it as it lies.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist', 'hook');

/**
 * The scripts, in order: a module belongs to the first whose roots reach it through static
 * imports. A dynamic import() that reaches a module no script claims adds it to the last one.
 */
const SCRIPTS = [
  // Every call: argv, stdin, the pinned policy, the adapters, the write gate, the turn state.
  { file: 'hook-body.cjs', main: 'src/cli/hook-main.ts' },
  // A Bash call: the shell parser and its knowledge of commands.
  { file: 'hook-shell.cjs', roots: ['src/core/shell/index.ts'] },
  // A refusal: the way back (the baseline), the audit log, evidence and keys.
  { file: 'hook-seal.cjs', roots: ['src/runtime/recorder.ts', 'src/runtime/scope-probe.ts'] },
  // A Stop's verifier chain, and a call waiting on a person.
  { file: 'hook-turn.cjs', roots: ['src/gate/stop-chain.ts', 'src/gate/approval-step.ts'] },
];

/** The prefix of a specifier that names a module of another script (`gh-script:hook-seal.cjs#src/x.ts`). */
const SCRIPT_PREFIX = 'gh-script:';
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAP_TAIL = '\n})';

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import() of another script becomes require() in a promise: vm.Script has no ES module loader.
  supported: { 'dynamic-import': false },
  minify: true,
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
};

/** The module graph: for each source file (relative to the root), its static and dynamic imports. */
async function moduleGraph() {
  const r = await build({ ...common, entryPoints: [join(root, SCRIPTS[0].main)], write: false, outfile: join(outDir, 'graph.cjs'), metafile: true, logLevel: 'silent' });
  const graph = new Map();
  for (const [file, info] of Object.entries(r.metafile.inputs)) {
    const own = info.imports.filter((i) => !i.external);
    graph.set(file, { static: own.filter((i) => i.kind !== 'dynamic-import').map((i) => i.path), dynamic: own.filter((i) => i.kind === 'dynamic-import').map((i) => i.path) });
  }
  return graph;
}

/** Which script holds each module: the first whose roots reach it by static imports. */
function assign(graph) {
  const owner = new Map();
  const claim = (script, start) => {
    const stack = [start];
    while (stack.length > 0) {
      const m = stack.pop();
      if (owner.has(m)) continue;
      if (!graph.has(m)) throw new Error(`build-hook: ${m} is not in the hook's module graph (a root was renamed?)`);
      owner.set(m, script);
      stack.push(...graph.get(m).static);
    }
  };
  for (const s of SCRIPTS) for (const r of s.main ? [s.main] : s.roots) claim(s.file, r);
  // Dynamic imports nothing claimed yet: the last script, so that new lazy code stays off the first.
  for (let grew = true; grew;) {
    grew = false;
    for (const [m, { dynamic }] of graph) {
      if (!owner.has(m)) continue;
      for (const d of dynamic.filter((x) => !owner.has(x))) {
        claim(SCRIPTS.at(-1).file, d);
        grew = true;
      }
    }
  }
  const stray = [...graph.keys()].filter((m) => !owner.has(m));
  if (stray.length > 0) throw new Error(`build-hook: modules in no script: ${stray.join(', ')}`);
  return owner;
}

/** For each script, the modules another script imports from it (it answers `load(id)` for those). */
function exported(graph, owner) {
  const out = new Map(SCRIPTS.map((s) => [s.file, new Set()]));
  for (const [m, { static: st, dynamic }] of graph) for (const d of [...st, ...dynamic]) if (owner.get(d) !== owner.get(m)) out.get(owner.get(d)).add(d);
  return out;
}

/** Resolves imports of modules held by another script to `gh-script:` specifiers the loader answers. */
function crossScriptImports(file, owner) {
  return {
    name: 'gatehouse-hook-scripts',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner || args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { inner: true } });
        if (r.errors.length > 0 || r.external) return r.errors.length > 0 ? { errors: r.errors } : undefined;
        const id = relative(root, r.path);
        const holder = owner.get(id);
        if (holder === undefined || holder === file) return { path: r.path };
        return { path: `${SCRIPT_PREFIX}${holder}#${id}`, external: true };
      });
    },
  };
}

/** The script's entry: `load(id)` for the modules others import, then (the first script) the hook itself. */
function entrySource(script, ids) {
  const cases = [...ids].sort().map((id) => `    case ${JSON.stringify(id)}: return require(${JSON.stringify(join(root, id))});`);
  const lines = ['exports.load = function load(id) {', '  switch (id) {', ...cases, '    default: throw new Error("gatehouse hook: no module " + id);', '  }', '};'];
  if (script.main) lines.push(`require(${JSON.stringify(join(root, script.main))});`);
  return lines.join('\n');
}

async function buildScript(script, ids, owner) {
  const r = await build({
    ...common,
    stdin: { contents: entrySource(script, ids), resolveDir: root, sourcefile: `${script.file}.entry.js`, loader: 'js' },
    write: false,
    outfile: join(outDir, script.file),
    plugins: [crossScriptImports(script.file, owner)],
  });
  // A warning here is a bundle that may not run as written (an import nothing exports, a require esbuild could not follow).
  if (r.warnings.length > 0) throw new Error(`${script.file}: esbuild warned (printed above); the hook's scripts are built without warnings`);
  const code = Buffer.from(`${WRAP_HEAD}${r.outputFiles[0].text}${WRAP_TAIL}`, 'utf8');
  // Read as latin1 by the loader: a single non-ASCII byte would make V8 hold the script as two-byte.
  const at = code.findIndex((b) => b > 0x7f);
  if (at >= 0)
    throw new Error(`${script.file} is not ASCII at byte ${at}: ${JSON.stringify(code.subarray(Math.max(0, at - 60), at + 20).toString('utf8'))}; escape the character in the source (\\uXXXX)`);
  const digest = createHash('sha256').update(code).digest('hex');
  const file = join(outDir, script.file);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([Buffer.from(`//gh-sha256:${digest}\n`, 'latin1'), code]));
  renameSync(tmp, file);
  return code.length;
}

const started = Date.now();
mkdirSync(outDir, { recursive: true });
const graph = await moduleGraph();
const owner = assign(graph);
const exports = exported(graph, owner);
const sizes = [];
for (const s of SCRIPTS) sizes.push(`${s.file} ${((await buildScript(s, exports.get(s.file), owner)) / 1024).toFixed(0)} KB`);
console.log(`built dist/hook (${sizes.join(', ')}) in ${Date.now() - started} ms`);
