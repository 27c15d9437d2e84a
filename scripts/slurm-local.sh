#!/usr/bin/env bash
# A real Slurm on this one machine, for the tests and for trying the batch templates before a
# cluster: a private munged, slurmctld and slurmd, all configured and run from one directory.
#
#   scripts/slurm-local.sh start DIR   write DIR/slurm.conf, start the daemons, wait for the node
#   scripts/slurm-local.sh stop DIR    stop the daemons started from DIR (by their PIDs)
#   scripts/slurm-local.sh status DIR  show the node and the queue
#
# Then point the clients at it:  export SLURM_CONF=DIR/slurm.conf; sbatch ...
#
# It needs root (slurmd starts each job as the user who submitted it) and Debian's slurm-wlm
# and munge packages (scripts/install-deps.sh installs them). Nothing outside DIR is written:
# its own munge key and socket, state, spool, logs and PID files. The node is this machine
# (`hostname -s`), with the CPUs and memory `slurmd -C` finds. No cgroups: processes are
# tracked through /proc (proctrack/linuxproc) and tasks bound by task/affinity, so it also
# runs in containers. Requeued jobs wait cred_expire seconds before they start again (a
# site's default is 120 s; here MINIAPP_SLURM_REQUEUE_DELAY, default 5 s).
#
# Environment: MINIAPP_SLURM_PORT (first of two free TCP ports to use, default 16817),
# MINIAPP_SLURM_REQUEUE_DELAY (seconds, default 5), MINIAPP_SLURM_TASK_PLUGIN (task/affinity;
# task/none to see what a site without task binding does).
# Exit status: 0 done; 1 a daemon did not start (its log is shown); 2 usage; 3 Slurm or munge
# not installed; 4 not root.
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin  # the daemons live there, often not on a user's PATH

usage() { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
[ $# = 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
say() { printf 'slurm-local: %s\n' "$*"; }

# Stop one daemon by the PID in its PID file: TERM, then KILL after 10 s.
stop_pidfile() {
  local file=$1 pid t
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  if kill -0 "$pid" 2> /dev/null; then
    kill -TERM "$pid" 2> /dev/null || true
    for ((t = 0; t < 100; t++)); do
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2> /dev/null; then
      say "$(basename "$file" .pid) (PID $pid) ignored SIGTERM for 10 s: SIGKILL"
      kill -KILL "$pid" 2> /dev/null || true
    fi
  fi
  rm -f "$file"
}

stop_all() {
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munge/munged.pid"
}

show_log() {  # the end of a daemon's log, for a start that failed
  [ -f "$1" ] || return 0
  echo "--- last lines of $1:"
  tail -n 20 "$1"
}

case "$action" in
  stop)
    stop_all
    say "stopped the daemons of $dir (logs kept there)"
    exit 0
    ;;
  status)
    SLURM_CONF=$conf sinfo -N -l || true
    SLURM_CONF=$conf squeue || true
    exit 0
    ;;
  start) ;;
  *) usage ;;
esac

missing=()
for tool in munged slurmctld slurmd sbatch srun scontrol sinfo; do
  command -v "$tool" > /dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "slurm-local: Slurm is not installed here (missing: ${missing[*]})." \
    "On Debian/Ubuntu: apt-get install slurm-wlm munge (scripts/install-deps.sh does)." >&2
  exit 3
fi
if [ "$(id -u)" != 0 ]; then
  echo "slurm-local: needs root: slurmd starts every job as the user who submitted it." >&2
  exit 4
fi

t0=$SECONDS
stop_all  # daemons left behind by an earlier run that was killed
mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool" "$dir/tmp"
chmod 755 "$dir" "$dir/munge"  # munged: the socket directory must be searchable by all
rm -f "$dir"/*.log "$dir/munge/munged.log"

# munge: a key of our own and a socket in DIR, so a site's munged is neither used nor disturbed.
key=$dir/munge/munge.key
if [ ! -s "$key" ]; then
  if command -v mungekey > /dev/null; then
    mungekey --create --keyfile="$key"
  else
    dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
  fi
fi
chmod 600 "$key"
socket=$dir/munge/munge.socket
munged --key-file="$key" --socket="$socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
  { show_log "$dir/munge/munged.log"; exit 1; }
munge -n -S "$socket" | unmunge -S "$socket" > /dev/null ||
  { echo "slurm-local: munged does not answer on $socket" >&2; show_log "$dir/munge/munged.log"; exit 1; }

# Two free TCP ports (slurmctld, slurmd); a port with a listener answers the connect.
port=${MINIAPP_SLURM_PORT:-16817}
port_busy() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
while port_busy "$port" || port_busy $((port + 1)); do port=$((port + 2)); done

node=$(hostname -s)
# "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=..."
hardware=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$node/")
cat > "$conf" << CONF
# Written by scripts/slurm-local.sh: a one-node Slurm on $node, everything under $dir.
ClusterName=miniapp-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# Requeued jobs wait cred_expire seconds (a site's default: 120 s).
AuthInfo=socket=$socket,cred_expire=${MINIAPP_SLURM_REQUEUE_DELAY:-5}
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
# The steps' scratch (PMIx keeps spmix_appdir_UID_JOB.STEP there): two instances on one machine
# number their jobs alike, and in a shared /tmp one's left-over directory fails the other's step.
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups (containers, CI): /proc process tracking, affinity binding of the tasks.
ProctrackType=proctrack/linuxproc
TaskPlugin=${MINIAPP_SLURM_TASK_PLUGIN:-task/affinity}
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
# Frequent scheduling passes: a requeued job starts soon after its delay.
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=5
MinJobAge=600
SlurmdParameters=config_overrides
$hardware NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$conf" || { show_log "$dir/slurmctld.log"; exit 1; }
slurmd -f "$conf" -N "$node" || { show_log "$dir/slurmd.log"; exit 1; }

# Wait for the node to register and come up idle.
for ((t = 0; t < 300; t++)); do
  state=$(SLURM_CONF=$conf sinfo -h -N -n "$node" -o %T 2> /dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.1
done
if [ "$state" != idle ]; then
  echo "slurm-local: node $node is '${state:-unknown}' after 30 s, not idle" >&2
  show_log "$dir/slurmctld.log"
  show_log "$dir/slurmd.log"
  stop_all
  exit 1
fi
say "started in $((SECONDS - t0)) s: node $node ($hardware), ports $port-$((port + 1))"
say "clients: export SLURM_CONF=$conf"
