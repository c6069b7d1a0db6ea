// kubectl and helm: reads of the cluster and of charts. Secrets, raw API paths, exec, port
// forwarding and anything that reaches another server or runs a credential plugin ask.
import type { ToolKb } from './types.js';

/** kubectl flags that send the user's credentials elsewhere or run a credential plugin from a file. */
const KUBE_UNSAFE = {
  '--server': "sends the user's cluster credentials to the server it names",
  '-s': "sends the user's cluster credentials to the server it names",
  '--kubeconfig': 'reads a kubeconfig whose `exec` credential plugin runs a program',
  '--token': 'authenticates with a token given on the command line',
  '-v': 'logs requests, headers included',
  '--v': 'logs requests, headers included',
  '--raw': 'reads any API path, secrets included',
  '--show-secret': 'prints secret values',
};

/** Resource names that hold credentials. */
const SECRETS = { match: /(^|[,/])secrets?($|[,/.])/, why: 'prints secret values' };

export const KUBECTL: ToolKb = {
  family: 'kubectl',
  programs: ['kubectl', 'oc', 'k3s-kubectl', 'microk8s.kubectl'],
  globals: { flags: ['--insecure-skip-tls-verify'], values: ['-n', '--namespace', '--context', '--cluster', '--user', '--request-timeout'] },
  unsafe: KUBE_UNSAFE,
  entries: [
    { path: 'config view', class: 'approve', why: 'shows the kubeconfig, credentials redacted', flags: 'any', unsafe: { '--raw': 'prints the credentials', '--flatten': 'embeds the credentials' } },
    { path: 'config get-contexts|current-context|get-clusters|get-users', class: 'approve', why: 'reads the kubeconfig', flags: 'any' },
    {
      path: 'get',
      class: 'approve',
      why: 'reads resources',
      flags: 'any',
      values: ['-o', '--output', '-l', '--selector', '--field-selector', '-L', '--label-columns', '--sort-by', '--template', '--chunk-size', '--output-watch-events'],
      unsafe: {
        '-f': 'reads resources named in files, which may be secrets',
        '--filename': 'reads resources named in files',
        '-k': 'builds resources from a kustomization',
        '--kustomize': 'builds resources from a kustomization',
      },
      askPositional: SECRETS,
    },
    {
      path: 'logs',
      class: 'approve',
      why: 'reads container logs',
      flags: 'any',
      values: ['-c', '--container', '--since', '--since-time', '--tail', '-l', '--selector', '--max-log-requests', '--pod-running-timeout'],
    },
    {
      path: 'describe|explain|top|api-resources|api-versions|version|events|cluster-info',
      class: 'approve',
      why: 'reads the cluster',
      flags: 'any',
      values: ['-l', '--selector', '-c', '--container', '--since', '--tail', '-o', '--output'],
      unsafe: { '-f': 'reads resources named in files', '--filename': 'reads resources named in files' },
    },
    { path: 'cluster-info dump', class: 'ask', why: 'dumps the whole cluster, and can write it to files' },
    { path: 'rollout status|history', class: 'approve', why: 'reads a rollout', flags: 'any' },
    { path: 'auth can-i|whoami', class: 'approve', why: 'checks permissions', flags: 'any' },
    { path: 'help|options|plugin', class: 'approve', why: 'prints help', flags: 'any', maxPositionals: 1 },
  ],
};

export const HELM: ToolKb = {
  family: 'helm',
  programs: ['helm'],
  globals: { flags: ['--debug'], values: ['-n', '--namespace', '--kube-context'] },
  unsafe: {
    '--kubeconfig': 'reads a kubeconfig whose `exec` credential plugin runs a program',
    '--kube-apiserver': "sends the user's cluster credentials to another server",
    '--kube-token': 'authenticates with a given token',
  },
  entries: [
    { path: 'get values|manifest|all|hooks|notes', class: 'ask', why: "prints a release's values and manifests, where secrets are kept" },
    { path: 'list|ls|status|history|version|env|search', class: 'approve', why: 'reads releases or charts', flags: 'any' },
    { path: 'show|inspect, repo|plugin|dependency|dep list, get metadata', class: 'approve', why: 'reads charts', flags: 'any' },
    { path: 'show|inspect *', class: 'approve', why: 'reads charts', flags: 'any' },
    { path: 'lint', class: 'approve', why: 'checks a chart', flags: 'any', unsafe: { '--with-subcharts': 'may download subcharts' } },
    {
      path: 'template',
      class: 'approve',
      why: 'renders a chart to standard output',
      flags: 'any',
      values: ['-f', '--values', '--set', '--set-string', '--version', '--api-versions', '--kube-version', '-s', '--show-only', '--name-template', '--repo'],
      unsafe: {
        '--output-dir': 'writes files',
        '--post-renderer': 'runs a program on the output',
        '--dependency-update': 'downloads and writes chart dependencies',
        '--validate': 'contacts the cluster',
        '--set-file': 'reads a file into the values',
      },
    },
  ],
};
