#!/usr/bin/env bash
# Runs a harness command so that a signal stops it as it should:
# `hack/relay.sh [--log FILE] [--suite] command args...`. The command runs
# in a process group of its own; a SIGINT, SIGTERM or SIGHUP to this script
# goes on, once, to the command alone, or with --suite to Ginkgo's CLI and
# its parallel processes (its children). The script waits for the command to
# finish its teardown and exits with its status; with --suite it then says
# the run was stopped and exits with 128 + the signal's number, as a shell
# reports a signal (Ginkgo's CLI says neither); so it does for a command the
# signal killed before it could say so itself. --log also writes the output
# into FILE, and keeps writing it when our stdout's reader goes away
# (make conformance | head).
#
# Why: make passes a SIGTERM to its own child only, the shell, which died of
# it and left `ginkgo ... | tee` running the specs with no one to stop them;
# Ginkgo's CLI passes no signal on to its parallel processes, which run the
# teardown; and a Ctrl-C reached every process of the run, tee (whose death
# then killed Ginkgo) and the kwokctl that was removing the cluster too,
# which left the control plane running. Only the processes that stop what
# they started get the signal; they stop their own helpers.
set -uo pipefail

log=
suite=
while [ $# -gt 0 ]; do
  case $1 in
    --log) log=$2; shift 2 ;;
    --suite) suite=1; shift ;;
    *) break ;;
  esac
done
name=$(basename "$1")

# A signal is recorded, with its name as Go gives it (the harness's
# commands say they were stopped in the same words), and passed on once the
# command runs: one that comes before is passed on as soon as it starts.
pid=
pending=
stopped=
status=0
relay() {
  stopped="$2 signal received"
  status=$3
  if [ -n "$pid" ]; then
    send "$1"
  else
    pending=$1
  fi
}
send() {
  local targets=$pid
  if [ -n "$suite" ]; then
    targets="$targets $(children "$pid")"
  fi
  kill -s "$1" $targets 2>/dev/null
}
# children lists the processes whose parent is $1, from each process's stat
# (after the name in parentheses: state, then the parent's PID).
children() {
  local stat line f
  for stat in /proc/[0-9]*/stat; do
    read -r line < "$stat" 2>/dev/null || continue
    read -ra f <<< "${line##*) }"
    if [ "${f[1]}" = "$1" ]; then
      echo "${stat//[^0-9]/}"
    fi
  done
}
trap 'relay INT interrupt 130' INT
trap 'relay TERM terminated 143' TERM
trap 'relay HUP hangup 129' HUP

if [ -n "$log" ]; then
  # tee ignores the signals: it ends when the command's output does.
  exec 3>&1 4>&2
  exec > >(trap '' INT TERM HUP; exec tee -p "$log") 2>&1
  tee_pid=$!
fi

# A group of its own: the terminal's Ctrl-C reaches make's group, this
# script among it, and not the command's helpers.
set -m
"$@" &
pid=$!
set +m
if [ -n "$pending" ]; then
  send "$pending"
fi

# wait returns early when a trapped signal arrives; the command goes on with
# its teardown, so wait again until it is gone.
while kill -0 "$pid" 2>/dev/null; do
  wait "$pid"
done
wait "$pid"
command_status=$?
# Ginkgo's CLI does not say it was stopped; nor can a command the signal
# killed before it could handle it (it had started nothing yet).
if [ -n "$stopped" ] && { [ -n "$suite" ] || [ "$command_status" -gt 128 ]; }; then
  echo "$name: stopped ($stopped)"
fi
if [ -z "$stopped" ] || [ -z "$suite" ]; then
  status=$command_status
fi

if [ -n "$log" ]; then
  # Closing our end lets tee finish the log before make reports the status.
  exec 1>&3 2>&4 3>&- 4>&-
  wait "$tee_pid"
fi
exit "$status"
