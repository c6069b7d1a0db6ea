import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';

/** A session as the hook sees it: home known, writes confined to the worktree, the usual protected files. */
const ctx: ShellContext = {
  cwd: '/w',
  home: '/home/u',
  confine: '/w',
  protectedPaths: [
    '/w/.claude/settings.json',
    '/w/.claude/settings.local.json',
    '/w/gatehouse.yaml',
    '/w/.git/config',
    '/w/.git/hooks/',
    '/w/.git/info/',
    '/home/u/.claude/settings.json',
    '/home/u/.gitconfig',
    '/home/u/.config/gatehouse/',
    '/home/u/.local/state/gatehouse/',
  ],
};

describe('ordinary developer commands keep their class', () => {
  const cases: [string, 'approve' | 'ask'][] = [
    ['npm test', 'ask'],
    ['git status', 'approve'],
    ['git commit -m x', 'ask'],
    ['git stash', 'ask'],
    ['git stash pop', 'ask'],
    ['ls src', 'approve'],
    ['cat a | grep b', 'approve'],
    ['echo x > src/a.ts', 'ask'],
    ['mkdir -p src/x', 'ask'],
    ['git add -A && git commit -m "fix: x"', 'ask'],
    ['git diff HEAD~1 -- src', 'approve'],
    ['git log --oneline -5', 'approve'],
    ['git push origin HEAD', 'ask'],
    ['git checkout -b feature', 'ask'],
    ['git checkout main', 'ask'],
    ['git fetch origin', 'ask'],
    ['cd src && npm test', 'ask'],
    ['npm run build 2>&1 | tail -20', 'ask'],
    ['npx vitest run test/a.test.ts', 'ask'],
    ['rm -rf dist', 'ask'],
    ['rm -rf node_modules/.cache/*', 'ask'],
    ["cat > src/a.ts <<'EOF'\nexport const a = 1;\nEOF", 'ask'],
    ['git commit -m "$(cat <<\'EOF\'\nfix: a\n\nbody\nEOF\n)"', 'ask'],
    ["sed -i 's/a/b/' src/*.ts", 'ask'],
    ['for f in src/*.ts; do wc -l "$f"; done', 'approve'],
    ['ls -la ~/.claude', 'approve'],
    ['cat ~/.gitconfig', 'approve'],
    ['echo $HOME', 'approve'],
    ['find . -name "*.ts" -not -path "./node_modules/*" | head', 'approve'],
    ['grep -rn TODO src | wc -l', 'approve'],
    ['mv src/a.ts src/b.ts', 'ask'],
    ['cp -r templates/x src/x', 'ask'],
    ['touch src/{a,b}.ts', 'ask'],
    ['python3 -m pytest -q', 'ask'],
    ['git checkout -- src/a.ts', 'ask'],
    ['git restore src/a.ts', 'ask'],
    ['echo done > /tmp/out.txt', 'ask'],
    ['cd /tmp && ls', 'approve'],
  ];
  it.each(cases)('%j: %s', (cmd, cls) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe(cls);
    expect(a.parsed).toBe(true);
    expect(a.unread).toBeUndefined();
  });

  it('reports a plain write as before: literal and as written', () => {
    expect(analyzeShell('echo x > src/a.ts', ctx).writeTargets).toEqual([{ path: 'src/a.ts', via: 'redirect >', kind: 'write', literal: true, recursive: false }]);
    expect(analyzeShell('mkdir -p src/x', ctx).writeTargets).toEqual([{ path: 'src/x', via: 'mkdir', kind: 'create', literal: true, recursive: false }]);
  });
});
