#!/usr/bin/env bash
# Scripts/phase.sh NAME COMMAND...: runs COMMAND and prints how long it took, so that
# `make test` and `.ci/run` say the time of each phase. Exits with COMMAND's status.
#
# When COMMAND fails, what explains the failure is printed again at the end (failed
# tests, fatal errors, and the crashed thread's frames when a process crashed), because
# a CI log is often read from its tail and a crash's backtrace ends in register dumps.
name=$1
shift
start=$(date +%s)
log=$(mktemp "${TMPDIR:-/tmp}/phase-$name.XXXXXX")
trap 'rm -f "$log"' EXIT
status=0
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
took=$(( $(date +%s) - start ))
if [ "$status" -eq 0 ]; then
    echo "== phase $name: $((took / 60)) min $((took % 60)) s"
else
    {
        echo "== phase $name failed; what the log says of it:"
        grep -a -E '✘|[Ff]atal error|error:|SWIFT TASK|Simultaneous accesses|double free|corrupted|Program crashed|Signal [0-9]+:' "$log" \
            | grep -a -v 'passed after' | head -n 40
        # The crashed thread's frames: from "Thread N crashed:" to the register dump.
        awk '/^Thread [0-9]+.* crashed:/ { on = 1 } on && /^Registers:/ { exit } on && NF' "$log" | head -n 60
    } | sed 's/^/   /'
    echo "== phase $name: $((took / 60)) min $((took % 60)) s, failed (exit $status)"
fi
exit "$status"
