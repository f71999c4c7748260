#!/usr/bin/env bash
# Runs every benchmark against the release build and prints Markdown for BENCHMARKS.md.
# Extra arguments go to ServerBench (e.g. --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "## $(date -u +%Y-%m-%d) on $(hostname)"
echo
echo "### Server (Benchmarks/ServerBench)"
.build/release/ServerBench "$@"
echo
echo "### Event feed (Benchmarks/FeedBench)"
.build/release/FeedBench --fanout 1000,10000
echo
echo "### The store alone, and SQLite's floor under it (Benchmarks/StoreBench)"
.build/release/StoreBench --seconds 4 --rounds 2
.build/release/StoreBench --seconds 4 --rounds 2 --quota none
echo
echo "### Moderation (Benchmarks/FeedBench --only moderation, Benchmarks/RulesBench moderator)"
.build/release/FeedBench --only moderation --members 1000 --mod-rate 10 --seconds 30
echo
echo "### Rules (Benchmarks/RulesBench)"
.build/release/RulesBench
echo
echo "### Client core (Benchmarks/ClientBench)"
.build/release/ClientBench
echo
echo "### Bot runner (Benchmarks/BotBench)"
.build/release/BotBench
echo
echo "### Alert bridge (Benchmarks/AlertBench)"
.build/release/AlertBench
echo
echo "### PostgreSQL wake-ups (Benchmarks/NotifyBench)"
.build/release/NotifyBench
