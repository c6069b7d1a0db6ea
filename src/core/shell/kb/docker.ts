// Docker and its look-alikes: listing and inspecting containers, images, networks and volumes.
// run, exec, cp, login, build and every other verb ask; so does pointing the CLI at another config.
import type { ToolKb } from './types.js';

/** Read-only flags of the listing commands; `-f`/`--filter` and `--format` take values. */
const LIST_VALUES = ['-f', '--filter', '--format', '-n', '--last'];

export const DOCKER: ToolKb = {
  family: 'docker',
  programs: ['docker', 'podman', 'nerdctl'],
  globals: { flags: ['-D', '--debug'], values: ['--context', '-c', '-l', '--log-level'] },
  unsafe: {
    '--config': 'reads a CLI config whose plugins and credential helpers are programs',
    '-H': 'talks to another Docker daemon',
    '--host': 'talks to another Docker daemon',
  },
  entries: [
    { path: 'ps|images|version|info, system df|info, context ls|show|inspect, buildx ls|version', class: 'approve', why: 'lists or describes', flags: 'any', values: LIST_VALUES },
    { path: 'container ls|list|ps|inspect|top|port|diff|stats|logs', class: 'approve', why: 'reads containers', flags: 'any', values: [...LIST_VALUES, '--since', '--until', '--tail', '-t'] },
    { path: 'image|images ls|list|inspect|history', class: 'approve', why: 'reads images', flags: 'any', values: LIST_VALUES },
    { path: 'network|volume ls|list|inspect', class: 'approve', why: 'reads networks or volumes', flags: 'any', values: LIST_VALUES },
    { path: 'inspect|top|port|diff|history', class: 'approve', why: 'reads a container or image', flags: 'any', values: ['-f', '--format', '--type'] },
    { path: 'logs', class: 'approve', why: 'reads container logs', flags: 'any', values: ['--since', '--until', '--tail', '-n'] },
    { path: 'stats', class: 'approve', why: 'shows resource use', flags: 'any', values: ['--format'] },
    { path: 'manifest inspect|search', class: 'approve', why: 'reads a registry', flags: 'any', values: ['-f', '--filter', '--format', '--limit'] },
    // compose config prints the resolved environment, secrets from .env included: not here.
    {
      path: 'compose ps|ls|images|top|version|logs',
      class: 'approve',
      why: 'reads a compose project',
      flags: 'any',
      values: ['-f', '--file', '-p', '--project-name', '--format', '--filter', '--status', '--tail', '--since', '--until', '--env-file'],
    },
  ],
};
