import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';

const ctx: ShellContext = { cwd: '/srv/repo', protectedPaths: ['/srv/repo/.gatehouse/'] };
const classOf = (cmd: string): string => analyzeShell(cmd, ctx).class;

/** Per family: a read that is approved beside the unsafe forms of the same tool, which ask. */
const TABLE: Record<string, { approve: string[]; ask: string[] }> = {
  kubectl: {
    approve: ['kubectl get pods', 'kubectl -n web logs deploy/api --tail 20'],
    ask: ['kubectl get secret x -o yaml', 'kubectl delete pod x', 'kubectl exec web -- ls', 'kubectl config view --raw'],
  },
  aws: { approve: ['aws ec2 describe-vpcs', 'aws s3 ls'], ask: ['aws sts get-session-token', 'aws ecr get-login-password', 'aws s3 cp s3://b/k .', 'aws ec2 terminate-instances --instance-ids i-1'] },
  gcloud: { approve: ['gcloud compute instances list'], ask: ['gcloud auth print-access-token', 'gcloud compute instances delete vm1', 'gcloud container clusters get-credentials c'] },
  az: { approve: ['az vm list'], ask: ['az account get-access-token', 'az vm delete -n x', 'az storage account keys list -n a'] },
  docker: { approve: ['docker ps', 'docker inspect web'], ask: ['docker run ubuntu', 'docker login', 'docker exec web sh', 'docker -H tcp://x ps'] },
  gh: { approve: ['gh pr view 1', 'gh issue list'], ask: ['gh auth token', 'gh pr merge 1', 'gh api repos/o/r'] },
  npm: { approve: ['npm ls', 'npm view react'], ask: ['npm token list', 'npm run build', 'npm install x'] },
  pip: { approve: ['pip show x', 'pip list'], ask: ['pip install x', 'pip download x'] },
  cargo: { approve: ['cargo tree'], ask: ['cargo check', 'cargo build', 'cargo --config build.rustc-wrapper=x tree'] },
  terraform: { approve: ['terraform show', 'terraform output'], ask: ['terraform state pull', 'terraform output -json', 'terraform plan'] },
  helm: { approve: ['helm list', 'helm template ./c'], ask: ['helm get values r', 'helm install r ./c', 'helm template ./c --post-renderer ./x'] },
  git: { approve: ['git tag -l', 'git remote -v', 'git --version'], ask: ['git tag v1', 'git remote add x u', 'git -c core.sshCommand=x ls-remote origin'] },
  text: { approve: ['sed -n 1p f', "awk '{print $2}' f", 'tar -tf a.tar'], ask: ['sed -i 1d f', "awk '{system($0)}' f", 'tar -xf a.tar'] },
  os: { approve: ['ps aux', 'ip addr', 'ss -lnt'], ask: ['ip addr add 10.0.0.1 dev eth0', 'ss -K dst 1.2.3.4', 'hostname evil'] },
  wrappers: { approve: ['find . -exec grep -l x {} +', 'ls | xargs wc -l'], ask: ['find . -exec sh -c "echo {}" \\;', 'ls | xargs rg x', 'ls | xargs rm'] },
  env: { approve: ['FOO=bar git status'], ask: ['XDG_CONFIG_HOME=x git log', 'KUBECONFIG=x kubectl get pods', 'GIT_PAGER=x git log'] },
};

describe('knowledge base: each family approves its reads, never its unsafe forms', () => {
  for (const [family, { approve, ask }] of Object.entries(TABLE)) {
    it.each(approve)(`${family}: approves %s`, (cmd) => expect(classOf(cmd)).toBe('approve'));
    it.each(ask)(`${family}: does not approve %s`, (cmd) => expect(classOf(cmd)).not.toBe('approve'));
  }
});

/** Approved reads, and flags known to turn each into a write, a program run or a credential print. */
const DANGEROUS_FLAGS: [string, string[]][] = [
  ['kubectl get pods', ['--raw=/api/v1/secrets', '--kubeconfig=./k', '--server=https://x', '-f=secret.yaml']],
  ['aws s3 ls', ['--debug', '--endpoint-url=https://x']],
  ['gh pr view 1', ['--web', '-w']],
  ['rg foo', ['--pre=./x']],
  ['sed -n 1p f', ['-i', '--in-place', '-f=x.sed']],
  ['tree', ['-o=x', '-R']],
  ['fd x', ['--exec=rm', '-x']],
  ['fzf -f x', ['--bind=enter:execute(rm)', '--listen=8080', '--preview=cat']],
  ['terraform output', ['-json', '-raw']],
  ['git diff', ['--ext-diff', '--output=x']],
];

/** Flags Gatehouse knows to be harmless for these tools, to mix in around the dangerous one. */
const HARMLESS = ['-o', 'wide', '--output', 'json', '-q', '--no-color', '-v', 'x'];

describe('knowledge base properties', () => {
  it('adding flags around a known dangerous flag never turns its ask into an approve', () => {
    const cases = DANGEROUS_FLAGS.flatMap(([base, flags]) => flags.map((f) => [base, f] as const));
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.array(fc.constantFrom(...HARMLESS), { maxLength: 4 }), fc.array(fc.constantFrom(...HARMLESS), { maxLength: 4 }), ([base, flag], before, after) => {
        const cmd = [base, ...before, flag, ...after].join(' ');
        expect(classOf(cmd), cmd).not.toBe('approve');
      }),
      { numRuns: 400 },
    );
  });

  it('appending any argument to an asked command never makes it approved', () => {
    const asked = Object.values(TABLE).flatMap((t) => t.ask);
    fc.assert(
      fc.property(fc.constantFrom(...asked), fc.array(fc.stringMatching(/^[-a-z0-9=./]{1,8}$/), { maxLength: 3 }), (cmd, extra) => {
        const line = [cmd, ...extra.map((e) => `'${e}'`)].join(' ');
        expect(classOf(line), line).not.toBe('approve');
      }),
      { numRuns: 400 },
    );
  });
});
