#!/usr/bin/env bash
# A one-machine Slurm cluster for tests: munged, slurmctld and slurmd on
# localhost, every file (config, state, logs, sockets) under one directory, so
# it never touches the machine's own Slurm or munge set-up.
#
#   scripts/slurm-local.sh start DIR   # prints "export SLURM_CONF=DIR/slurm.conf"; exit 0 when ready
#   scripts/slurm-local.sh stop DIR    # stops the three daemons started for DIR
#
# Needs Debian's slurm-wlm and munge (scripts/install-deps.sh --test) and root
# (slurmd runs jobs as their submitter). Exits 3 when it cannot start here, so
# a test can skip visibly instead of failing.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: slurm-local.sh start|stop DIR" >&2
  exit 2
fi

# stop: each daemon gets TERM and up to 5 s to write its state and exit, so
# the caller may delete DIR right after.
stop() {
  for daemon in slurmd slurmctld munged; do
    [ -f "$dir/$daemon.pid" ] || continue
    pid=$(cat "$dir/$daemon.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    rm -f "$dir/$daemon.pid"
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || { echo "slurm-local.sh: unknown command $cmd" >&2; exit 2; }

for tool in munged slurmctld slurmd sbatch scontrol; do
  command -v "$tool" >/dev/null || { echo "slurm-local.sh: $tool not installed" >&2; exit 3; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm-local.sh: needs root" >&2; exit 3; }
[ -r /etc/munge/munge.key ] || { echo "slurm-local.sh: no /etc/munge/munge.key" >&2; exit 3; }

mkdir -p "$dir/state" "$dir/spool"
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
# Ports from the directory's name, so two fixtures on one machine rarely clash.
base=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))

cat >"$dir/slurm.conf" <<EOF
ClusterName=weft-test
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

stop
munged --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
  --seed-file="$dir/munged.seed" --force
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF"

# Ready when the node takes jobs.
for _ in $(seq 1 100); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "slurm-local.sh: the node did not come up (see $dir/slurmctld.log, $dir/slurmd.log)" >&2
stop
exit 3
