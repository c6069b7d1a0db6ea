// Operating-system and network inspection: processes, sockets, addresses, logs and services.
// The forms that kill, clear, set or rotate ask.
import type { ToolKb } from './types.js';

export const PS: ToolKb = {
  family: 'ps',
  programs: [
    'ps',
    'pstree',
    'pgrep',
    'pidof',
    'lsof',
    'netstat',
    'free',
    'vmstat',
    'iostat',
    'mpstat',
    'lscpu',
    'lsblk',
    'lsusb',
    'lspci',
    'lsmod',
    'modinfo',
    'findmnt',
    'uptime',
    'w',
    'who',
    'last',
    'lastlog',
    'getent',
    'nproc',
    'arch',
    'tty',
    'locale',
    'groups',
    'users',
    'logname',
    'lsmem',
    'lsipc',
    'lslocks',
    'lsns',
  ],
  entries: [{ path: '', class: 'approve', why: 'shows system state', flags: 'any' }],
};

export const SS: ToolKb = {
  family: 'ss',
  programs: ['ss'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'lists sockets',
      flags: 'any',
      values: ['-f', '--family', '-A', '--query'],
      unsafe: { '-K': 'kills sockets', '--kill': 'kills sockets', '-D': 'writes a file', '--diag': 'writes a file' },
    },
  ],
};

/** `ip` object words (with the abbreviations ip accepts) and the commands that only show. */
const IP_OBJECTS = 'a|ad|addr|address|l|li|link|r|ro|route|n|ne|neigh|neighbour|ru|rule|maddr|maddress|mroute|tunnel|tuntap|netns|netconf|ntable|token|nexthop|monitor|xfrm|vrf|mptcp';

export const IP: ToolKb = {
  family: 'ip',
  programs: ['ip'],
  longSingleDash: true,
  globals: {
    flags: ['-4', '-6', '-br', '-brief', '-c', '-color', '-j', '-json', '-p', '-pretty', '-s', '-stats', '-d', '-details', '-o', '-oneline', '-h', '-human', '-a', '-all'],
    values: ['-f', '-family', '-n', '-netns'],
  },
  entries: [
    { path: IP_OBJECTS, class: 'approve', why: 'shows network configuration', flags: [], maxPositionals: 0 },
    { path: `${IP_OBJECTS} s|sh|show|l|ls|lst|list|get`, class: 'approve', why: 'shows network configuration', flags: 'any' },
  ],
};

export const IFCONFIG: ToolKb = {
  family: 'ifconfig',
  programs: ['ifconfig', 'iwconfig'],
  entries: [{ path: '', class: 'approve', why: 'shows interfaces', flags: ['-a', '-s', '-v'], maxPositionals: 1 }],
};

export const HOSTNAME: ToolKb = {
  family: 'hostname',
  programs: ['hostname', 'domainname'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'prints the host name',
      flags: ['-I', '-i', '-f', '-s', '-d', '-A', '-a', '--fqdn', '--short', '--all-ip-addresses', '--ip-address', '--long'],
      maxPositionals: 0,
    },
  ],
};

export const DMESG: ToolKb = {
  family: 'dmesg',
  programs: ['dmesg'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'reads the kernel log',
      flags: 'any',
      values: ['-l', '--level', '-f', '--facility', '--since', '--until', '--time-format'],
      unsafe: {
        '-c': 'clears the log',
        '-C': 'clears the log',
        '--clear': 'clears the log',
        '--read-clear': 'clears the log',
        '-n': 'sets the console level',
        '--console-level': 'sets the console level',
        '-D': 'turns console logging off',
        '-E': 'turns console logging on',
        '--console-off': 'turns console logging off',
        '--console-on': 'turns console logging on',
      },
    },
  ],
};

export const JOURNALCTL: ToolKb = {
  family: 'journalctl',
  programs: ['journalctl'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'reads the journal',
      flags: 'any',
      values: [
        '-u',
        '--unit',
        '--user-unit',
        '-n',
        '--lines',
        '-p',
        '--priority',
        '-S',
        '--since',
        '-U',
        '--until',
        '-o',
        '--output',
        '-b',
        '--boot',
        '-t',
        '--identifier',
        '-g',
        '--grep',
        '-D',
        '--directory',
        '--file',
        '-M',
        '--machine',
        '_PID',
        '--output-fields',
      ],
      unsafe: {
        '--vacuum-size': 'deletes journal files',
        '--vacuum-time': 'deletes journal files',
        '--vacuum-files': 'deletes journal files',
        '--rotate': 'rotates the journal',
        '--flush': 'moves the journal',
        '--sync': 'writes the journal',
        '--relinquish-var': 'moves the journal',
        '--smart-relinquish-var': 'moves the journal',
        '--setup-keys': 'makes sealing keys',
        '--update-catalog': 'writes the catalog',
      },
    },
  ],
};

export const SYSTEMCTL: ToolKb = {
  family: 'systemctl',
  programs: ['systemctl'],
  globals: {
    flags: ['--user', '--system', '--no-pager', '--no-legend', '--all', '-a', '--full', '-l', '--plain', '-q', '--quiet'],
    values: ['-t', '--type', '--state', '-p', '--property', '-H', '--host', '-M', '--machine', '-n', '--lines', '-o', '--output'],
  },
  unsafe: { '-H': 'talks to another host over ssh', '--host': 'talks to another host over ssh' },
  entries: [
    {
      path: 'status|show|cat|list-units|list-unit-files|list-timers|list-sockets|list-dependencies|list-jobs|list-machines|is-active|is-enabled|is-failed|is-system-running|get-default|show-environment',
      class: 'approve',
      why: 'reads unit state',
      flags: 'any',
    },
  ],
};

export const CTL_STATUS: ToolKb = {
  family: 'hostnamectl/timedatectl',
  programs: ['hostnamectl', 'timedatectl', 'localectl', 'loginctl', 'networkctl', 'resolvectl'],
  entries: [
    { path: '', class: 'approve', why: 'shows status', flags: ['--no-pager', '--json=short', '--json=pretty'], maxPositionals: 0 },
    {
      path: 'status|show|list|list-*|show-*|query|statistics|dns|domain',
      class: 'approve',
      why: 'shows status',
      flags: 'any',
      unsafe: { '-H': 'talks to another host', '--host': 'talks to another host' },
    },
  ],
};

export const SYSCTL: ToolKb = {
  family: 'sysctl',
  programs: ['sysctl'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'reads kernel settings',
      flags: ['-a', '--all', '-n', '--values', '-N', '--names', '-e', '--ignore', '-b', '--binary', '-r'],
      askPositional: { match: /=/, why: 'sets a kernel setting' },
    },
  ],
};

export const TOP: ToolKb = {
  family: 'top',
  programs: ['top'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'shows processes once',
      flags: ['-b', '-c', '-H', '-i', '-S', '-1', '-E', '-e', '-w'],
      values: ['-n', '-d', '-p', '-u', '-U', '-o', '-O'],
      requires: ['-b', '-bn1', '-bn', '-n'],
    },
  ],
};

export const MOUNT: ToolKb = {
  family: 'mount',
  programs: ['mount', 'swapon'],
  entries: [{ path: '', class: 'approve', why: 'lists mounts', flags: ['-l', '--show', '-s', '--summary'], values: ['-t'], maxPositionals: 0 }],
};

export const NVIDIA_SMI: ToolKb = {
  family: 'nvidia-smi',
  programs: ['nvidia-smi'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'shows GPUs',
      flags: ['-q', '-L', '-x', '--query', '--list-gpus', '--xml-format'],
      values: ['-i', '--id', '-d', '--display', '--query-gpu', '--query-compute-apps', '--format', '-l', '--loop'],
    },
    { path: 'topo', class: 'approve', why: 'shows GPU topology', flags: ['-m', '--matrix'] },
  ],
};
