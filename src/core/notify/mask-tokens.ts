// Hides values shaped like credentials wherever they appear in text that leaves this
// machine (a phone notification, a chat message): known token prefixes, JWTs, key blocks.

/** What a masked token is shown as: its kind stays readable, the secret does not. */
const MASK = '***';

/**
 * Credential shapes, each anchored on a prefix its issuer documents, so ordinary words,
 * paths and commit hashes are left alone. The prefix stays, so a person still sees what
 * kind of secret the call carries.
 */
const TOKEN_SHAPES: readonly RegExp[] = [
  // GitHub: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained (github_pat_).
  /\b(gh[pousr]_)[A-Za-z0-9]{20,255}\b/g,
  /\b(github_pat_)[A-Za-z0-9_]{20,255}\b/g,
  // Anthropic, OpenAI and others that start with sk- (sk-ant-…, sk-proj-…).
  /\b(sk-(?:ant-|proj-|live_|test_)?)[A-Za-z0-9_-]{16,255}/g,
  // Slack bot, user, app and refresh tokens.
  /\b(xox[abprs]-)[A-Za-z0-9-]{10,255}/g,
  // AWS access key ids, Google API keys, GitLab and npm tokens.
  /\b((?:AKIA|ASIA))[0-9A-Z]{16}\b/g,
  /\b(AIza)[0-9A-Za-z_-]{35}\b/g,
  /\b(glpat-)[0-9A-Za-z_-]{20,255}/g,
  /\b(npm_)[A-Za-z0-9]{36}\b/g,
  // A JWT: three base64url parts, the first two of them JSON objects ("eyJ").
  /\b(eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** A PEM private key block, whole. */
const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/**
 * `text` with every credential-shaped value masked (its prefix kept).
 * @example maskTokens('curl -H "x: ghp_0123456789abcdefghijABCDEFGHIJ"') // 'curl -H "x: ghp_***"'
 */
export function maskTokens(text: string): string {
  let out = text.replace(PRIVATE_KEY_BLOCK, `-----BEGIN PRIVATE KEY----- ${MASK}`);
  for (const re of TOKEN_SHAPES) out = out.replace(re, (_whole: string, prefix: string) => `${prefix}${MASK}`);
  return out;
}
