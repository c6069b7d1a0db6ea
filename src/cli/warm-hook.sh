# Gatehouse's warm hook client (bash, no Node start-up): sends the hook call to the running
# supervisor over loopback and relays its verdict. On any trouble (no supervisor, wrong
# secret, no answer in time, a cut-off reply) it runs the cold hook command given after
# `--` with the same stdin, so enforcement never depends on the supervisor being up.
#
# usage: bash warm.sh PORT SECRET_FILE SESSION EVENT AGENT FAIL_CLOSED(0|1) DEADLINE_S POLICY_SHA256 [PROJECT_KEY] -- COLD_ARGV...
#
# Request:  POST /hooks/v1/SESSION/EVENT/AGENT/FAIL_CLOSED?p=POLICY_SHA256[&project=PROJECT_KEY], bearer secret, body "<len(cwd)>\n<cwd><stdin>".
# PROJECT_KEY is rendered for a supervisor of all projects (`serve --all`), which serves this project under that key.
# Reply:    HTTP 200 with body "GATEHOUSE1 <exit> <stdout bytes> <stderr bytes>\n<stdout><stderr>".

LC_ALL=C
port=$1 secret_file=$2 session=$3 event=$4 agent=$5 fail_closed=$6 deadline=$7 policy_sha256=$8
shift 8
project=
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  project="&project=$1"
  shift
fi
[ "$1" = "--" ] && shift
cold_argv=("$@")

# The whole input, trailing newlines included, read by the shell itself: `$(cat)` forks twice,
# which cost more than the rest of this client (7 ms of 24 on a 2-core VM). With -N, read takes
# bytes (LC_ALL=C) up to the cap or the end, ignores delimiters and reads the pipe in blocks. Like
# command substitution, it drops NUL bytes (JSON has none unescaped). The cap is past the hook's
# own input limit (64 MB), so a larger input is still refused as too large.
IFS= read -r -d '' -N 100000000 body

cold() {
  printf '%s' "$body" | "${cold_argv[@]}"
  exit $?
}

[ ${#cold_argv[@]} -gt 0 ] || exit 2
# The secret is opened read-write: a FIFO the agent put in its place would block a read-only open
# until someone writes to it, and a hook hanging past the agent's timeout lets the call through.
# Opened read-write, a FIFO never blocks at open and the read gives up after a second. -f first,
# since <> would create a missing file.
[ -f "$secret_file" ] || cold
{ exec 4<>"$secret_file"; } 2>/dev/null || cold
IFS= read -r -t 1 secret <&4 || cold
exec 4<&-
{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || cold

head="${#PWD}"$'\n'"$PWD"
printf 'POST /hooks/v1/%s/%s/%s/%s?p=%s%s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\nContent-Type: application/octet-stream\r\nContent-Length: %s\r\n\r\n%s%s' \
  "$session" "$event" "$agent" "$fail_closed" "$policy_sha256" "$project" "$port" "$secret" $((${#head} + ${#body})) "$head" "$body" >&3 2>/dev/null || cold

# The supervisor sends its status line as soon as it has the request; silence means it is stuck.
IFS= read -r -t 2 status <&3 || cold
[[ $status == "HTTP/1."?" 200 "* ]] || cold
# Then the verdict, which may take as long as the checks it runs; past the deadline, decide locally.
IFS= read -r -d '' -t "$deadline" rest <&3
[ $? -gt 128 ] && cold
exec 3<&-

reply=${rest#*$'\r\n\r\n'}
[ "$reply" != "$rest" ] || cold
line=${reply%%$'\n'*}
[[ $line =~ ^GATEHOUSE1\ ([02])\ ([0-9]+)\ ([0-9]+)$ ]] || cold
code=${BASH_REMATCH[1]} out_len=${BASH_REMATCH[2]} err_len=${BASH_REMATCH[3]}
payload=${reply#*$'\n'}
[ ${#payload} -eq $((out_len + err_len)) ] || cold
printf '%s' "${payload:0:out_len}"
printf '%s' "${payload:out_len}" >&2
exit "$code"
