#!/usr/bin/env bash
# Start one `dancehall worker` on every host of HOSTS_FILE over ssh, and drain them all on stop.
#
# Usage: DANCEHALL_COORDINATOR=https://coord.example:7321 DANCEHALL_TOKEN_FILE=token \
#        scripts/launch/ssh-workers.sh HOSTS_FILE
#
# HOSTS_FILE: one host per line (anything ssh accepts: `host`, `user@host`, an ssh_config alias),
# optionally followed by the number of threads for that host (default: all its cores); `#` starts
# a comment. The coordinator must listen on an address the hosts reach
# (`dancehall coordinator --listen 0.0.0.0:7321 --allow-remote`, with --tls-cert/--tls-key on
# any network you do not trust).
#
# Environment:
#   DANCEHALL_COORDINATOR  coordinator URL as the hosts see it (required)
#   DANCEHALL_TOKEN_FILE   local file holding the coordinator's bearer token (required); it is
#                          copied to each host as ~/.dancehall/token with mode 0600
#   DANCEHALL_BIN          path of the dancehall binary on the hosts (default: dancehall)
#   DANCEHALL_TLS_CA       local CA certificate to copy to the hosts and pass as --tls-ca
#   DANCEHALL_IDLE         seconds with nothing to lease after which a worker exits (default 300)
#   SSH                    ssh command (default: ssh -o BatchMode=yes)
#
# Each host needs sshd, the dancehall binary and a POSIX login shell (sh, bash, zsh); the worker
# writes its pid to ~/.dancehall/WORKER_ID.pid while it runs. A host that ssh cannot reach is
# skipped with a message. Stop with Ctrl-C or SIGTERM: every worker gets SIGTERM, stops leasing,
# finishes or hands back its units, reports, and exits; this script waits for all of them, then
# exits 0. The workers also exit by themselves after DANCEHALL_IDLE seconds with nothing to
# lease, and the script when all of them have. Tested against a real sshd by cli/tests/ssh.rs.
set -euo pipefail

hosts_file=${1:?usage: ssh-workers.sh HOSTS_FILE}
: "${DANCEHALL_COORDINATOR:?set DANCEHALL_COORDINATOR to the coordinator URL}"
: "${DANCEHALL_TOKEN_FILE:?set DANCEHALL_TOKEN_FILE to the token file}"
bin=${DANCEHALL_BIN:-dancehall}
idle=${DANCEHALL_IDLE:-300}
read -r -a ssh <<<"${SSH:-ssh -o BatchMode=yes}"

# `%q` quotes a word for the remote shell.
q() { printf '%q' "$1"; }

pids=()
hosts=()
ids=()

# The trap is set before any worker starts: a signal while hosts are still being started drains
# those already started (bash runs the trap once the ssh in progress returns).
drain() {
  trap '' INT TERM
  echo "draining ${#hosts[@]} workers (SIGTERM; they finish or hand back their units)" >&2
  for i in "${!hosts[@]}"; do
    # A worker whose ssh session has ended has exited already.
    kill -0 "${pids[$i]}" 2>/dev/null || continue
    # Wait (5 s at most) for the pid file of a worker still starting, then signal it; in the
    # background, so that every host is told at once.
    "${ssh[@]}" "${hosts[$i]}" "f=~/.dancehall/${ids[$i]}.pid; i=0; \
      while [ ! -s \"\$f\" ] && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i + 1)); done; \
      [ -s \"\$f\" ] && kill -TERM \"\$(cat \"\$f\")\"" </dev/null || true &
  done
  wait
  exit 0
}
trap drain INT TERM

while read -r host threads _; do
  [[ -z "$host" || "$host" == \#* ]] && continue
  n=${#hosts[@]}
  id="ssh-$(q "${host##*@}")-$n"
  pidf="~/.dancehall/$id.pid"
  # Token (and CA) travel over ssh's stdin, never on a command line. A host that cannot be
  # reached is skipped (the others run). Each is written to a file of its own and renamed
  # into place: a worker already started on the same host (a host listed twice) may be
  # reading the file, and must never see it truncated.
  if ! "${ssh[@]}" "$host" \
    "umask 077 && mkdir -p ~/.dancehall && rm -f $pidf && cat > ~/.dancehall/token.$id \
     && mv -f ~/.dancehall/token.$id ~/.dancehall/token" \
    <"$DANCEHALL_TOKEN_FILE"; then
    echo "skipped $host: could not copy the token over ssh" >&2
    continue
  fi
  tls=()
  if [[ -n "${DANCEHALL_TLS_CA:-}" ]]; then
    "${ssh[@]}" "$host" "umask 077 && cat > ~/.dancehall/ca.pem.$id \
      && mv -f ~/.dancehall/ca.pem.$id ~/.dancehall/ca.pem" <"$DANCEHALL_TLS_CA"
    tls=(--tls-ca '~/.dancehall/ca.pem')
  fi
  args=(--coordinator "$(q "$DANCEHALL_COORDINATOR")" --token-file '~/.dancehall/token'
        --worker-id "$id" --exit-when-idle "$(q "$idle")" "${tls[@]}")
  [[ -n "${threads:-}" ]] && args+=(--threads "$(q "$threads")")
  # The pid file names the worker (`$!`) while it runs and is removed when it exits, so that a
  # drain never signals a stale pid.
  "${ssh[@]}" "$host" "$(q "$bin") worker ${args[*]} & echo \$! > $pidf; \
    wait \$!; rc=\$?; rm -f $pidf; exit \$rc" \
    </dev/null 2>&1 | sed -u "s/^/[$id] /" &
  pids+=($!)
  hosts+=("$host")
  ids+=("$id")
  echo "started worker $id on $host" >&2
done <"$hosts_file"

[[ ${#hosts[@]} -gt 0 ]] || { echo "no hosts started from $hosts_file" >&2; exit 2; }

wait
