// Files that hold credentials by convention. A read-only command that names one prints a
// credential into the model's context (`cat ~/.aws/credentials`, `head .env`), so it asks.
import type { Word } from './ast.js';

/** Whole file names that hold secrets. */
const NAMES = new Set([
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  'credentials',
  'credentials.json',
  'terraform.tfstate',
  'terraform.tfstate.backup',
  'kubeconfig',
]);

/** File name shapes: `.env` and its variants (not the committed examples), private keys and key stores, secrets files. */
const NAME_RE = [/^\.env(\..+)?$/, /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/, /\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk)$/i, /^secrets?\.(ya?ml|json|toml|env)$/i, /\.tfvars(\.json)?$/];

/** Committed stand-ins that hold no secret. */
const EXAMPLE_RE = /\.(example|sample|template|dist|defaults?)$/i;

/** Folders whose files are credentials (matched as path parts). */
const DIRS = ['/proc/self/environ', '/proc/thread-self/environ', '/.aws/', '/.ssh/', '/.gnupg/', '/.kube/', '/.docker/', '/.config/gh/', '/.config/gcloud/', '/.azure/', '/.password-store/'];

/** Public halves and plain lists inside those folders. */
const PUBLIC_RE = /(\.pub|known_hosts|authorized_keys)$/;

/** The credential file a word's value names, or null; the value after any `--flag=` (`~` and `$HOME` as written). */
function credentialFile(word: string): string | null {
  const value = word.includes('=') && word.startsWith('-') ? word.slice(word.indexOf('=') + 1) : word;
  if (value === '' || value.startsWith('-')) return null;
  const base = value.slice(value.lastIndexOf('/') + 1);
  if (PUBLIC_RE.test(base) || EXAMPLE_RE.test(base)) return null;
  if (NAMES.has(base) || NAME_RE.some((re) => re.test(base))) return value;
  const path = `/${value.replace(/^(~|\$\{?HOME\}?)/, '')}`;
  return DIRS.some((d) => path.includes(d)) || /\/proc\/\d+\/environ$/.test(path) ? value : null;
}

/**
 * Why a read-only command with these arguments asks: it names a credential file. A relative name
 * is also judged from each folder the command may run in (`cd ~/.kube && cat config`).
 */
export function credentialRead(args: readonly Word[], cwds: readonly string[] | null = null): string | null {
  for (const w of args) {
    const file =
      credentialFile(w.value) ?? (w.value.startsWith('/') || w.value.startsWith('-') ? null : ((cwds ?? []).map((cwd) => credentialFile(`${cwd}/${w.value}`)).find((f) => f !== null) ?? null));
    if (file !== null) return `it reads ${file}, a file that holds credentials by convention, into the model's context`;
  }
  return null;
}
