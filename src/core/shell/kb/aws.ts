// AWS CLI: `aws SERVICE OPERATION`. Describe/list/get operations are API reads; the ones that
// hand out credentials, secrets or data files are listed first and ask.
import type { ToolKb } from './types.js';

/** `get-*` and friends that print a credential or secret, or write a file. */
const CREDENTIAL_OPS: readonly [string, string][] = [
  ['sts get-session-token|get-federation-token|assume-role*|get-access-key-info', 'prints temporary credentials'],
  ['ecr|ecr-public get-login-password|get-login|get-authorization-token', 'prints a registry password'],
  ['secretsmanager get-secret-value|batch-get-secret-value|get-random-password', 'prints a secret'],
  ['codeartifact get-authorization-token', 'prints a repository token'],
  ['eks get-token', 'prints a cluster token'],
  ['redshift get-cluster-credentials*', 'prints database credentials'],
  ['redshift-serverless get-credentials', 'prints database credentials'],
  ['sso get-role-credentials', 'prints role credentials'],
  ['cognito-identity get-credentials-for-identity|get-open-id-token*', 'prints identity credentials'],
  ['ec2 get-password-data', 'prints an instance password'],
  ['lightsail get-instance-access-details|download-default-key-pair', 'prints access keys'],
  ['iot get-*-token', 'prints a token'],
  ['kms decrypt|generate-data-key*', 'prints key material'],
  ['lambda get-function|get-function-configuration', "prints the function's environment, where secrets are often kept"],
  ['s3api get-object|get-object-torrent', 'writes the object to a file'],
  ['s3 presign', 'makes a URL that carries credentials'],
  ['configure get|export-credentials', 'prints configured credentials'],
];

export const AWS: ToolKb = {
  family: 'aws',
  programs: ['aws'],
  globals: {
    flags: ['--no-cli-pager', '--no-paginate', '--no-verify-ssl', '--no-sign-request', '--no-cli-auto-prompt'],
    values: [
      '--region',
      '--profile',
      '--output',
      '--query',
      '--color',
      '--page-size',
      '--max-items',
      '--starting-token',
      '--cli-read-timeout',
      '--cli-connect-timeout',
      '--ca-bundle',
      '--cli-binary-format',
    ],
  },
  unsafe: {
    '--debug': 'logs every request with its headers, session token included',
    '--endpoint-url': 'sends the signed request (and its session token) to another host',
    '--outfile': 'writes a file',
    '--cli-auto-prompt': 'opens an interactive prompt',
  },
  entries: [
    ...CREDENTIAL_OPS.map(([path, why]) => ({ path, class: 'ask' as const, why })),
    // Without decryption a SecureString comes back encrypted; before the generic entry, which it shadows.
    {
      path: 'ssm get-parameter|get-parameters|get-parameters-by-path|get-parameter-history',
      class: 'approve',
      why: 'reads parameters',
      flags: 'any',
      unsafe: { '--with-decryption': 'prints decrypted secrets' },
    },
    { path: '* describe-*|list-*|get-*|batch-get-*|lookup-*|search-*|scan|query|head-*|wait', class: 'approve', why: 'reads the service API', flags: 'any' },
    { path: 's3 ls', class: 'approve', why: 'lists buckets or objects', flags: 'any' },
    { path: 'sts get-caller-identity', class: 'approve', why: 'shows who the credentials belong to', flags: 'any' },
    { path: 'configure list|list-profiles', class: 'approve', why: 'lists profiles, keys masked', flags: 'any' },
    { path: 'logs tail', class: 'approve', why: 'reads a log group', flags: 'any' },
    { path: '* help', class: 'approve', why: 'prints help', flags: 'any' },
    { path: '* * help|help', class: 'approve', why: 'prints help', flags: 'any' },
    { path: '', class: 'approve', why: 'prints the version', flags: ['--version'], maxPositionals: 0 },
  ],
};
