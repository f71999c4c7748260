#!/usr/bin/env bash
# Scripts/phase.sh NAME COMMAND...: runs COMMAND and prints how long it took, so that
# `make test` and `.ci/run` say the time of each phase. Exits with COMMAND's status.
name=$1
shift
start=$(date +%s)
status=0
"$@" || status=$?
took=$(( $(date +%s) - start ))
if [ "$status" -eq 0 ]; then
    echo "== phase $name: $((took / 60)) min $((took % 60)) s"
else
    echo "== phase $name: $((took / 60)) min $((took % 60)) s, failed (exit $status)"
fi
exit "$status"
