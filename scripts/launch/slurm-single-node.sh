#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying the launch scripts and for the tests
# (cli/tests/slurm.rs): no systemd, no cgroup plugins, no accounting.
#
# Usage: scripts/launch/slurm-single-node.sh start|stop|status
#
# start: installs the Debian packages munge, slurmctld, slurmd and slurm-client when missing
#   (as root, or with password-less sudo), makes a munge key, writes a slurm.conf naming this
#   host with its real CPU count and memory, starts munged, `slurmctld -D -i` and `slurmd -D`
#   in the background, and waits until the node is idle. Idempotent: a running cluster is left
#   as it is.
# stop: stops slurmd, slurmctld and munged (state files stay under $SLURM_SINGLE_DIR).
# status: prints `sinfo` and exits 0 when the node answers.
#
# Everything lives under SLURM_SINGLE_DIR (default /var/tmp/dancehall-slurm): the config, the
# spool and state folders, the logs. Needs root (slurmd runs jobs as their users).
set -euo pipefail

dir=${SLURM_SINGLE_DIR:-/var/tmp/dancehall-slurm}
conf_dir=/etc/slurm
log() { printf 'slurm-single-node: %s\n' "$*" >&2; }

. "$(dirname "$0")/../lib/as-root.sh"

install_packages() {
    local missing=()
    command -v munged >/dev/null 2>&1 || missing+=(munge)
    command -v slurmctld >/dev/null 2>&1 || missing+=(slurmctld)
    command -v slurmd >/dev/null 2>&1 || missing+=(slurmd)
    command -v sbatch >/dev/null 2>&1 || missing+=(slurm-client)
    [ "${#missing[@]}" -eq 0 ] && return 0
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! as_root apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
        as_root apt-get update -q >/dev/null 2>&1 || true
        as_root apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# The node answers and takes jobs.
up() { timeout 5 sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated|completing)'; }

write_conf() {
    local host cpus mem
    host=$(hostname -s)
    cpus=$(nproc)
    # RealMemory in MB, a little below the total so that slurmd does not drain the node.
    mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
    as_root mkdir -p "$conf_dir" "$dir/spool/slurmd" "$dir/state" "$dir/log"
    as_root tee "$conf_dir/slurm.conf" >/dev/null <<EOF
# Written by dancehall's scripts/launch/slurm-single-node.sh: one node, no cgroups.
ClusterName=dancehall
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmdSpoolDir=$dir/spool/slurmd
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
KillWait=30
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    if pgrep -x munged >/dev/null; then return 0; fi
    as_root mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
    if [ ! -s /etc/munge/munge.key ]; then
        as_root dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    local owner=root
    id munge >/dev/null 2>&1 && owner=munge
    as_root chown -R "$owner:" /etc/munge /run/munge /var/lib/munge /var/log/munge
    as_root chmod 0700 /etc/munge /var/lib/munge /var/log/munge
    as_root chmod 0755 /run/munge
    as_root chmod 0400 /etc/munge/munge.key
    if [ "$owner" = munge ]; then
        as_root runuser -u munge -- munged
    else
        as_root munged --force
    fi
}

start() {
    if up; then
        log "already running: $(sinfo -h -o '%N %c CPUs %T')"
        return 0
    fi
    install_packages
    write_conf
    start_munge
    pgrep -x slurmctld >/dev/null || as_root sh -c "nohup slurmctld -D -i >>'$dir/log/slurmctld.out' 2>&1 &"
    pgrep -x slurmd >/dev/null || as_root sh -c "nohup slurmd -D >>'$dir/log/slurmd.out' 2>&1 &"
    for _ in $(seq 60); do
        if up; then
            log "up: $(sinfo -h -o '%N %c CPUs %T')"
            return 0
        fi
        sleep 1
    done
    log "the node did not become idle in 60 s; see $dir/log/"
    sinfo >&2 || true
    return 1
}

stop() {
    as_root pkill -x slurmd 2>/dev/null || true
    as_root pkill -x slurmctld 2>/dev/null || true
    as_root pkill -x munged 2>/dev/null || true
    log "stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) sinfo ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
