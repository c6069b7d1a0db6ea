import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';
import { normalizeRelative } from '../../../src/core/shell/paths.js';

const ctx: ShellContext = { cwd: '/srv/repo', protectedPaths: ['/srv/repo/gatehouse.yaml'] };

describe('normalizeRelative', () => {
  const cases: [string, string][] = [
    ['dist/./cli.js', 'dist/cli.js'],
    ['dist//cli.js', 'dist/cli.js'],
    ['./node_modules/.bin/gatehouse', 'node_modules/.bin/gatehouse'],
    ['a/../dist/cli.js', 'dist/cli.js'],
    ['../x/./y', '../x/y'],
    ['../../x', '../../x'],
    ['/a/../../b', '/b'],
    ['//approvals/x', '/approvals/x'],
    ['.', '.'],
    ['./', '.'],
  ];
  it.each(cases)('normalises %j to %j', (input, output) => {
    expect(normalizeRelative(input)).toBe(output);
  });
});

describe('deny rules compare normalised paths', () => {
  const deny: [string, string][] = [
    ['a /./ spelling of the built CLI', 'node dist/./cli.js approve 1'],
    ['a // spelling of the built CLI', 'node dist//cli.js approve 1'],
    ['a .. spelling of the built CLI', 'node src/../dist/cli.js approve 1'],
    ['the built CLI without its extension', 'node dist/cli approve 1'],
    ['the built CLI after a node option with a value', 'node -r ./x.cjs dist/cli.js approve 1'],
    ['the built CLI run directly by a ./ path', './dist/./cli.js approve 1'],
    ['the bin link with a doubled slash', './node_modules/.bin//gatehouse approve 1'],
    ['the bin link with a trailing /.', './node_modules/.bin/gatehouse/. approve 1'],
    ['the CLI under a folder only known at run time', '"$PWD"/dist/cli.js approve 1'],
    ['the CLI by a substituted folder', '$(pwd)/node_modules/.bin/gatehouse approve 1'],
    ['node of a substituted folder', 'node "$(pwd)/dist/cli.js" approve 1'],
    ['a session end through a spelled path', 'node ./dist/../dist/cli.js session end'],
    ['the approvals API with a doubled slash', 'curl -X POST http://127.0.0.1:7337//approvals/x/resolve'],
    ['the approvals API with /./', 'curl -X POST http://127.0.0.1:7337/./approvals/x/resolve'],
    ['the approvals API through ..', 'curl -X POST http://127.0.0.1:7337/x/../approvals/abc/resolve'],
    ['the approvals API percent-encoded', 'curl -X POST http://127.0.0.1:7337/%61pprovals/x/%72esolve'],
    ['the approvals API percent-encoded twice', 'curl -X POST http://127.0.0.1:7337/%2561pprovals/x/resolve'],
    ['the approvals API with backslashes', 'curl -X POST "http://127.0.0.1:7337\\approvals\\x\\resolve"'],
    ['the approvals API in upper case', 'curl -d x http://localhost:7337/APPROVALS/abc'],
  ];
  it.each(deny)('denies %s', (_name, cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
  });

  const notDenied: string[] = ['node dist/cli.js status', 'node dist/server.js approve', 'curl http://127.0.0.1:7337/approvals/queue', 'node ./scripts/cli.js approve'];
  it.each(notDenied)('does not deny %j', (cmd) => {
    expect(analyzeShell(cmd, ctx).class).not.toBe('deny');
  });
});
