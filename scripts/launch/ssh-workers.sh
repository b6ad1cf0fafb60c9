#!/usr/bin/env bash
# Start one `dancehall worker` on every host of HOSTS_FILE over ssh, and drain them all on stop.
#
# Usage: DANCEHALL_COORDINATOR=https://coord.example:7878 DANCEHALL_TOKEN_FILE=token \
#        scripts/launch/ssh-workers.sh HOSTS_FILE
#
# HOSTS_FILE: one host per line (anything ssh accepts: `host`, `user@host`, an ssh_config alias),
# optionally followed by the number of threads for that host (default: all its cores); `#` starts
# a comment. The coordinator must listen on an address the hosts reach
# (`dancehall coordinator --listen 0.0.0.0:7878 --allow-remote`, with --tls-cert/--tls-key on
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
# Stop with Ctrl-C or SIGTERM: every worker gets SIGTERM, stops leasing, finishes or hands back
# its units, reports, and exits; this script waits for all of them. The workers also exit by
# themselves after DANCEHALL_IDLE seconds with nothing to lease.
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
while read -r host threads _; do
  [[ -z "$host" || "$host" == \#* ]] && continue
  n=${#hosts[@]}
  id="ssh-$(q "${host##*@}")-$n"
  # Token (and CA) travel over ssh's stdin, never on a command line.
  "${ssh[@]}" "$host" 'umask 077 && mkdir -p ~/.dancehall && cat > ~/.dancehall/token' \
    <"$DANCEHALL_TOKEN_FILE"
  tls=()
  if [[ -n "${DANCEHALL_TLS_CA:-}" ]]; then
    "${ssh[@]}" "$host" 'cat > ~/.dancehall/ca.pem' <"$DANCEHALL_TLS_CA"
    tls=(--tls-ca '~/.dancehall/ca.pem')
  fi
  args=(--coordinator "$(q "$DANCEHALL_COORDINATOR")" --token-file '~/.dancehall/token'
        --worker-id "$id" --exit-when-idle "$(q "$idle")" "${tls[@]}")
  [[ -n "${threads:-}" ]] && args+=(--threads "$(q "$threads")")
  # `exec` keeps the shell's pid, so the pid file names the worker itself.
  "${ssh[@]}" "$host" "echo \$\$ > ~/.dancehall/$id.pid && exec $(q "$bin") worker ${args[*]}" \
    </dev/null 2>&1 | sed -u "s/^/[$id] /" &
  pids+=($!)
  hosts+=("$host")
  ids+=("$id")
  echo "started worker $id on $host" >&2
done <"$hosts_file"

[[ ${#hosts[@]} -gt 0 ]] || { echo "no hosts in $hosts_file" >&2; exit 2; }

drain() {
  trap '' INT TERM
  echo "draining ${#hosts[@]} workers (SIGTERM; they finish or hand back their units)" >&2
  for i in "${!hosts[@]}"; do
    "${ssh[@]}" "${hosts[$i]}" "kill -TERM \"\$(cat ~/.dancehall/${ids[$i]}.pid)\"" || true
  done
  wait
  exit 0
}
trap drain INT TERM

wait
