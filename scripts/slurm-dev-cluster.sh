#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for Runyard's Slurm tests and for trying the Slurm
# executor by hand. Needs root and Debian's slurm-wlm and munge (`up` installs them when missing).
#
#   scripts/slurm-dev-cluster.sh up      write the configuration, start munged, slurmctld and slurmd,
#                                        wait until the node is idle (idempotent)
#   scripts/slurm-dev-cluster.sh down    cancel every job and stop the daemons
#   scripts/slurm-dev-cluster.sh status  the node's and the partitions' state
#
# The node is this host with its real CPUs and most of its memory; two partitions, `debug` (the
# default) and `batch`, each letting up to 8 jobs share a core (OverSubscribe=FORCE:8), so that the
# tests' many short jobs do not queue behind two cores; memory is never shared. Jobs run as their submitter, with no accounting database: a finished job's
# state and exit code come from `scontrol show job` for MinJobAge seconds, then from the jobcomp log.
# TaskPlugin=task/none enforces no limit: Runyard's batch script confines the task itself.
# Everything but /etc/slurm/slurm.conf lives under RUNYARD_SLURM_DIR (default /var/lib/runyard-slurm);
# a slurm.conf that this script did not write is never overwritten.
set -euo pipefail

dir=${RUNYARD_SLURM_DIR:-/var/lib/runyard-slurm}
conf=/etc/slurm/slurm.conf
marker='# Written by Runyard scripts/slurm-dev-cluster.sh'
node=$(hostname -s)

log() { printf '==> slurm: %s\n' "$*" >&2; }
die() {
  printf 'slurm-dev-cluster: %s\n' "$*" >&2
  exit 1
}

install_packages() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && return
  log 'installing slurm-wlm and munge'
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
}

write_config() {
  if [ -e "$conf" ] && ! grep -qxF "$marker" "$conf"; then
    die "$conf exists and was not written by this script; not touching a real cluster's configuration"
  fi
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" /etc/slurm
  local cpus mem
  cpus=$(nproc)
  # Most of the memory (MB), leaving the rest to the host: Slurm refuses a node with less than it declares.
  mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
  cat >"$conf.new" <<EOF
$marker
ClusterName=runyard-dev
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Without a default, each job claims the whole node's memory and jobs run one at a time.
DefMemPerCPU=512
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
# Long enough to read a finished job's state and exit code with scontrol.
MinJobAge=600
# Seconds between SIGTERM and SIGKILL when a job is cancelled or passes its time.
KillWait=5
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
# A high-throughput dev node: schedule at every submission and job end, without the default delays.
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
# OverSubscribe=FORCE:8: up to 8 jobs on a core (Slurm starts a node's pending jobs about once a
# second, so with 2 cores 1-CPU jobs would start 2 a second).
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
PartitionName=batch Nodes=$node Default=NO MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
  mv "$conf.new" "$conf"
  # slurmd reads cgroup.conf only with cgroup plugins; an empty one keeps its warning quiet.
  [ -e /etc/slurm/cgroup.conf ] || printf 'CgroupPlugin=autodetect\n' >/etc/slurm/cgroup.conf
}

running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start_munge() {
  if munge -n </dev/null >/dev/null 2>&1; then return; fi
  log 'starting munged'
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null && chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key; }
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && return; sleep 0.1; done
  die 'munged did not come up'
}

node_state() { sinfo -h -n "$node" -o '%T' 2>/dev/null | head -n 1; }

up() {
  [ "$(id -u)" = 0 ] || die 'run as root'
  install_packages
  write_config
  start_munge
  if ! running "$dir/slurmctld.pid"; then
    log 'starting slurmctld'
    slurmctld
  fi
  if ! running "$dir/slurmd.pid"; then
    log 'starting slurmd'
    slurmd
  fi
  local state=''
  for _ in $(seq 120); do
    state=$(node_state)
    case $state in
    idle | mixed | allocated) break ;;
    down* | drain* | fail*) scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.5
  done
  case $state in
  idle | mixed | allocated) log "node $node is $state" ;;
  *) die "the node did not become idle (state: ${state:-unknown}); see $dir/log/" ;;
  esac
}

down() {
  if command -v scancel >/dev/null && [ -e "$conf" ] && grep -qxF "$marker" "$conf"; then
    scancel --full --signal=KILL --user=root >/dev/null 2>&1 || true
  fi
  for daemon in slurmd slurmctld; do
    if running "$dir/$daemon.pid"; then
      log "stopping $daemon"
      kill "$(cat "$dir/$daemon.pid")"
      for _ in $(seq 100); do running "$dir/$daemon.pid" || break; sleep 0.1; done
    fi
  done
}

status() {
  sinfo -N -o '%N %P %T %c %m'
  squeue -o '%i %P %j %T %r' | head -n 20
}

case ${1-} in
up) up ;;
down) down ;;
status) status ;;
*) die "usage: $0 up|down|status" ;;
esac
