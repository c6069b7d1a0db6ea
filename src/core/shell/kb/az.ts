// Azure CLI: `az GROUP… show|list`. Any subcommand word that names keys, secrets, credentials,
// connection strings or app settings asks; so do token and credential commands.
import type { ToolKb } from './types.js';

/** Subcommand words whose output is a credential (`keys list`, `show-connection-string`, `appsettings list`). */
const SECRETISH = /key|secret|credential|connection-string|token|password|appsettings|publish|sas|cert/;

/** Command groups `**` may cross. */
const GROUPS = [
  ...['account', 'group', 'vm', 'vmss', 'aks', 'acr', 'storage', 'webapp', 'functionapp', 'appservice', 'network', 'vnet', 'nsg', 'public-ip', 'lb'],
  ...['sql', 'postgres', 'mysql', 'cosmosdb', 'redis', 'keyvault', 'monitor', 'log-analytics', 'resource', 'role', 'ad', 'identity', 'policy', 'deployment'],
  ...['containerapp', 'container', 'servicebus', 'eventhubs', 'cognitiveservices', 'apim', 'cdn', 'dns', 'disk', 'snapshot', 'image', 'nic', 'subnet'],
  ...['server', 'db', 'flexible-server', 'plan', 'config', 'nodepool', 'repository', 'blob', 'container-rm', 'share', 'queue', 'table', 'metrics', 'alert'],
  ...['assignment', 'definition', 'sp', 'app', 'user', 'signed-in-user', 'subscription', 'tenant', 'location', 'extension', 'feature', 'provider', 'tag'],
  ...['namespace', 'workspace', 'env', 'revision', 'replica', 'rule', 'route-table', 'private-endpoint', 'application-gateway', 'front-door', 'bastion'],
];

export const AZ: ToolKb = {
  family: 'az',
  programs: ['az'],
  groups: GROUPS,
  globals: { flags: ['--only-show-errors', '--verbose', '-h', '--help'], values: ['--output', '-o', '--query', '--subscription'] },
  unsafe: { '--debug': 'logs every request with its headers' },
  entries: [
    { path: 'account get-access-token', class: 'ask', why: 'prints an access token' },
    { path: '** list|show|list-*|show-*|get-*', class: 'approve', why: 'reads the API', flags: 'any', askPositional: { match: SECRETISH, why: 'can print a key, secret or connection string' } },
    { path: 'version|help', class: 'approve', why: 'describes the CLI', flags: 'any' },
  ],
};
