# Gatehouse's hook client inside a sandbox (perl with no modules: a few ms to start). Sends
# the hook call to the supervising `gatehouse run` through the Unix socket bound into the
# sandbox and relays its verdict. There is no local fallback: the sandbox cannot see the
# session's state, so on any trouble (no supervisor, no answer within the deadline, a cut-off
# reply) it prints the refusal the supervisor left beside the socket and exits: fail closed.
#
# usage: perl socket-hook.pl SOCKET SESSION EVENT AGENT FAIL_CLOSED(0|1) DEADLINE_S POLICY_SHA256 REFUSAL_FILE
#
# Request: "GATEHOUSE1 SESSION EVENT AGENT FAIL_CLOSED POLICY_SHA256 <len(cwd)> <len(stdin)>\n<cwd><stdin>".
# Reply:   "GATEHOUSE1 <exit> <stdout bytes> <stderr bytes>\n<stdout><stderr>".
my ($sock_path, $session, $event, $agent, $fc, $deadline, $digest, $refusal) = @ARGV;
binmode STDIN; binmode STDOUT; binmode STDERR;

sub relay {
  my ($r) = @_;
  return 0 unless defined $r && $r =~ /\AGATEHOUSE1 ([02]) (\d+) (\d+)\n/;
  my ($code, $out_len, $err_len) = ($1, $2, $3);
  my $payload = substr($r, $+[0]);
  return 0 unless length($payload) == $out_len + $err_len;
  print STDOUT substr($payload, 0, $out_len);
  print STDERR substr($payload, $out_len);
  exit $code;
}

sub refuse {
  my ($why) = @_;
  if (open(my $f, '<', $refusal)) { binmode $f; local $/; relay(scalar <$f>); }
  print STDERR "Gatehouse refused this: the supervisor of this sandboxed session cannot be reached ($why), and a sandboxed session fails closed. Stop and tell the operator.\n";
  exit 2;
}

$SIG{ALRM} = sub { refuse("no answer within ${deadline} s") };
$SIG{PIPE} = 'IGNORE';
alarm($deadline > 0 ? $deadline : 1);
my $body = do { local $/; <STDIN> };
$body = '' unless defined $body;
my $cwd = readlink('/proc/self/cwd');
$cwd = '/' unless defined $cwd && length $cwd;
# AF_UNIX = 1, SOCK_STREAM = 1 (Linux); sockaddr_un = family (u16) + path.
socket(my $s, 1, 1, 0) or refuse("socket: $!");
connect($s, pack('S', 1) . $sock_path . "\0") or refuse("connect: $!");
binmode $s;
my $msg = join(' ', 'GATEHOUSE1', $session, $event, $agent, $fc, $digest, length($cwd), length($body)) . "\n" . $cwd . $body;
my $off = 0;
while ($off < length $msg) {
  my $n = syswrite($s, $msg, 65536, $off);
  refuse("write: $!") unless defined $n;
  $off += $n;
}
# The write side stays open while the answer is awaited: the request carries its own lengths,
# and the supervisor reads the end of the stream as this client being gone (killed), which
# withdraws a waiting approval.
my $reply = do { local $/; <$s> };
relay($reply) or refuse('a malformed or cut-off reply');
