// Text and archive inspectors: sed and awk without programs that write or run, tar and unzip
// listings, pagers and viewers without their command hooks, file finders without `--exec`.
import type { ToolKb } from './types.js';

/** A tool that is one entry: the program with no subcommand. */
function single(family: string, programs: readonly string[], entry: Omit<ToolKb['entries'][number], 'path' | 'class'>, longSingleDash = false): ToolKb {
  return { family, programs, longSingleDash, entries: [{ path: '', class: 'approve', ...entry }] };
}

export const SED = single('sed', ['sed', 'gsed'], {
  why: 'prints lines (its program is checked for `w`, `e` and `s///e`)',
  flags: ['-n', '--quiet', '--silent', '-E', '-r', '--regexp-extended', '-s', '--separate', '-u', '--unbuffered', '-z', '--null-data', '--posix', '--debug', '--sandbox'],
  values: ['-e', '--expression', '-l', '--line-length'],
  unsafe: { '-i': 'edits files in place', '--in-place': 'edits files in place', '-f': 'runs a program from a file', '--file': 'runs a program from a file', '-I': 'edits files in place' },
  check: 'sed',
});

export const AWK = single('awk', ['awk', 'gawk', 'mawk', 'nawk'], {
  why: 'prints fields (its program is checked for `system`, pipes and `print >`)',
  flags: ['-b', '-c', '-P', '-S', '--sandbox', '-M', '-N', '-n', '-r', '-t', '--posix', '--traditional', '--characters-as-bytes', '--re-interval', '--bignum', '-O', '--optimize'],
  values: ['-F', '-v', '--field-separator', '--assign', '-e', '--source'],
  unsafe: {
    '-f': 'runs a program from a file',
    '--file': 'runs a program from a file',
    '-E': 'runs a program from a file',
    '-i': 'includes a program file',
    '--include': 'includes a program file',
    '-l': 'loads a compiled extension',
    '--load': 'loads a compiled extension',
    '-o': 'writes a file',
    '--pretty-print': 'writes a file',
    '-p': 'writes a profile file',
    '--profile': 'writes a profile file',
    '-d': 'writes a variables file',
    '--dump-variables': 'writes a variables file',
    '-D': 'starts the debugger',
  },
  check: 'awk',
});

/** tar's check lists the letters and long options it allows; flags are left to it. */
export const TAR = single('tar', ['tar', 'gtar', 'bsdtar'], { why: 'lists an archive', flags: 'any', check: 'tar' });

export const UNZIP = single('unzip', ['unzip'], {
  why: 'lists or tests an archive',
  flags: ['-l', '-t', '-Z', '-p', '-q', '-qq', '-v', '-z', '-C'],
  requires: ['-l', '-t', '-Z', '-v', '-p'],
});

export const ZIPINFO = single('zipinfo', ['zipinfo', 'zcat', 'gzcat', 'xzcat', 'bzcat', 'zstdcat', 'lz4cat'], { why: 'prints compressed text or an archive listing', flags: 'any' });

export const OPENSSL: ToolKb = {
  family: 'openssl',
  programs: ['openssl'],
  longSingleDash: true,
  entries: [
    {
      path: 'x509|req|crl|pkcs7',
      class: 'approve',
      why: 'prints a certificate, request or list',
      flags: [
        '-noout',
        '-text',
        '-subject',
        '-issuer',
        '-dates',
        '-enddate',
        '-startdate',
        '-fingerprint',
        '-sha256',
        '-sha1',
        '-md5',
        '-serial',
        '-purpose',
        '-pubkey',
        '-modulus',
        '-hash',
        '-email',
        '-ocsp_uri',
        '-verify',
        '-print_certs',
        '-subject_hash',
        '-issuer_hash',
        '-alias',
        '-ext',
      ],
      values: ['-in', '-inform', '-nameopt', '-certopt', '-checkend', '-ext'],
    },
    { path: 'version|ciphers|list|help', class: 'approve', why: 'describes openssl', flags: 'any', unsafe: { '-out': 'writes a file' } },
    {
      path: 'dgst|sha256|sha1|md5',
      class: 'approve',
      why: 'hashes files',
      flags: ['-sha256', '-sha1', '-sha512', '-md5', '-r', '-hex', '-c'],
      unsafe: { '-sign': 'uses a private key', '-hmac': 'uses a key' },
    },
    { path: 'verify', class: 'approve', why: 'verifies a certificate chain', flags: ['-verbose', '-show_chain', '-x509_strict', '-purpose'], values: ['-CAfile', '-CApath', '-untrusted', '-purpose'] },
    { path: 'asn1parse', class: 'approve', why: 'prints a structure', flags: ['-i', '-dump', '-noout'], values: ['-in', '-inform', '-offset', '-length', '-strparse'] },
  ],
};

export const PAGER = single('less', ['less', 'more', 'most'], {
  why: 'shows a file',
  // `+cmd` and `-+` run less commands (`!` runs a shell); a lesskey file can set LESSOPEN.
  flags: [
    '-N',
    '-R',
    '-r',
    '-S',
    '-F',
    '-X',
    '-i',
    '-I',
    '-M',
    '-m',
    '-n',
    '-q',
    '-Q',
    '-s',
    '-e',
    '-E',
    '-g',
    '-G',
    '-w',
    '-W',
    '-J',
    '-K',
    '-L',
    '-f',
    '--no-init',
    '--quit-if-one-screen',
    '--chop-long-lines',
    '--RAW-CONTROL-CHARS',
    '--LINE-NUMBERS',
    '--ignore-case',
  ],
  values: ['-x', '--tabs', '-p', '--pattern', '-y', '-z', '-b', '-h', '-j'],
  unsafe: {
    '-o': 'writes a log file',
    '-O': 'writes a log file',
    '--log-file': 'writes a log file',
    '-k': 'reads a lesskey file that can set an input preprocessor',
    '--lesskey-file': 'reads a lesskey file',
    '-P': 'sets a prompt',
  },
  askPositional: { match: /^\+/, why: 'runs less commands at start, and `!` among them runs a shell' },
});

export const TREE = single('tree', ['tree'], {
  why: 'lists folders',
  flags: 'any',
  values: ['-L', '-P', '-I', '--charset', '--filelimit', '--sort', '--timefmt', '--gitfile', '--infofile'],
  unsafe: { '-o': 'writes a file', '-R': 'writes an index file in every folder', '-H': 'writes HTML' },
});

export const FD = single('fd', ['fd', 'fdfind'], {
  why: 'finds files',
  flags: 'any',
  values: [
    '-e',
    '--extension',
    '-t',
    '--type',
    '-d',
    '--max-depth',
    '--min-depth',
    '-E',
    '--exclude',
    '-S',
    '--size',
    '--changed-within',
    '--changed-before',
    '-j',
    '--threads',
    '--max-results',
    '-c',
    '--color',
    '--base-directory',
    '--search-path',
    '--ignore-file',
  ],
  unsafe: { '-x': 'runs a command on every result', '--exec': 'runs a command on every result', '-X': 'runs a command on the results', '--exec-batch': 'runs a command on the results' },
});

export const BAT = single('bat', ['bat', 'batcat'], {
  why: 'shows a file',
  flags: 'any',
  values: ['-l', '--language', '-r', '--line-range', '-H', '--highlight-line', '--style', '--theme', '--color', '--paging', '--tabs', '-m', '--map-syntax', '--wrap', '--decorations', '--file-name'],
  unsafe: { '--pager': 'runs a pager program', '--config-file': 'reads options from a file' },
});

export const XXD = single('xxd', ['xxd'], { why: 'prints a hex dump', flags: 'any', values: ['-c', '-g', '-l', '-s', '-o', '-n'], maxPositionals: 1, unsafe: { '-r': 'writes binary back out' } });

export const YQ = single('yq', ['yq'], {
  why: 'queries YAML',
  flags: 'any',
  values: ['-o', '--output-format', '-p', '--input-format', '--indent'],
  unsafe: { '-i': 'edits files in place', '--inplace': 'edits files in place', '--split-exp': 'writes files', '-s': 'writes files', '--from-file': 'reads an expression from a file' },
});

export const FZF = single('fzf', ['fzf'], {
  why: 'filters lines',
  flags: 'any',
  values: [
    '-f',
    '--filter',
    '-q',
    '--query',
    '-d',
    '--delimiter',
    '-n',
    '--nth',
    '--with-nth',
    '--height',
    '--layout',
    '--prompt',
    '--header',
    '--tiebreak',
    '--scheme',
    '--color',
    '--border',
    '--info',
  ],
  unsafe: {
    '--bind': 'binds keys to actions that can run commands',
    '--preview': 'runs a command for every line',
    '--listen': 'takes commands over HTTP',
    '--listen-unsafe': 'takes commands over HTTP',
    '--with-shell': 'changes the shell its commands run in',
    '--history': 'writes a history file',
  },
});

export const MAN = single('man', ['man'], {
  why: 'shows a manual page',
  flags: ['-k', '-f', '-a', '-w', '--where', '--apropos', '--whatis'],
  values: ['-S', '-s', '--sections', '-L'],
  unsafe: { '-P': 'runs a pager program', '--pager': 'runs a pager program', '-H': 'runs a browser', '--html': 'runs a browser' },
});
