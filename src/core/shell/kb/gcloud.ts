// Google Cloud CLI: `gcloud GROUP… COMMAND`. `list` and `describe` under known command groups
// read; `auth print-*`, secret access and credential setup ask.
import type { ToolKb } from './types.js';

/** Command groups `**` may cross; a word not here (a command such as `delete`) stops the match. */
const GROUPS = [
  ...['alpha', 'beta', 'compute', 'container', 'projects', 'iam', 'sql', 'run', 'functions', 'app', 'storage', 'config', 'auth', 'services', 'logging'],
  ...['pubsub', 'kms', 'dns', 'artifacts', 'builds', 'organizations', 'resource-manager', 'billing', 'monitoring', 'dataproc', 'dataflow', 'bigtable'],
  ...['spanner', 'redis', 'filestore', 'deployment-manager', 'endpoints', 'firebase', 'ai', 'ml', 'scheduler', 'tasks', 'workflows', 'source', 'memcache'],
  ...['composer', 'asset', 'recommender', 'certificate-manager', 'network-services', 'network-security', 'workstations', 'eventarc', 'secrets', 'batch'],
  ...['instances', 'disks', 'networks', 'subnets', 'firewall-rules', 'zones', 'regions', 'clusters', 'node-pools', 'operations', 'images', 'snapshots'],
  ...['addresses', 'routers', 'routes', 'forwarding-rules', 'backend-services', 'target-pools', 'instance-groups', 'managed', 'instance-templates'],
  ...['machine-types', 'health-checks', 'url-maps', 'ssl-certificates', 'service-accounts', 'roles', 'keys', 'databases', 'users', 'backups', 'services'],
  ...['revisions', 'jobs', 'executions', 'domain-mappings', 'versions', 'buckets', 'objects', 'topics', 'subscriptions', 'keyrings', 'managed-zones'],
  ...['record-sets', 'repositories', 'packages', 'docker', 'tags', 'triggers', 'logs', 'sinks', 'metrics', 'policies', 'folders', 'accounts', 'locations'],
  ...['vpn-tunnels', 'interconnects', 'security-policies', 'reservations', 'commitments', 'os-login', 'project-info', 'connectors', 'vpc-access'],
  ...['configurations', 'components', 'regions', 'environments', 'queues', 'dashboards', 'channels', 'uptime', 'workloads', 'hub', 'memberships'],
];

export const GCLOUD: ToolKb = {
  family: 'gcloud',
  programs: ['gcloud'],
  groups: GROUPS,
  globals: {
    flags: ['--quiet', '-q', '--no-user-output-enabled', '--uri'],
    values: ['--project', '--format', '--account', '--configuration', '--verbosity', '--billing-project', '--impersonate-service-account', '--trace-token'],
  },
  unsafe: {
    '--log-http': 'logs every request with its headers, access token included',
    '--flags-file': 'reads more flags from a file Gatehouse does not see',
    '--access-token-file': 'authenticates with a token from a file',
  },
  entries: [
    { path: 'auth print-access-token|print-identity-token|application-default', class: 'ask', why: 'prints or sets up credentials' },
    { path: '** secrets versions access', class: 'ask', why: 'prints a secret' },
    { path: '** get-credentials', class: 'ask', why: 'writes cluster credentials into the kubeconfig' },
    { path: '** keys create', class: 'ask', why: 'makes a key and writes it' },
    { path: '** list|describe|get-iam-policy|list-*|describe-*|get-serial-port-output', class: 'approve', why: 'reads the API', flags: 'any' },
    { path: 'config get-value|get|list', class: 'approve', why: 'reads the CLI configuration', flags: 'any' },
    { path: 'auth list', class: 'approve', why: 'lists accounts', flags: 'any' },
    { path: 'version|info|help', class: 'approve', why: 'describes the CLI', flags: 'any' },
  ],
};
