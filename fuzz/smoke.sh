#!/usr/bin/env bash
# One-minute smoke run of each fuzz target (CI). Usage: bash fuzz/smoke.sh [seconds per target]
# Needs atheris (pip install atheris). Two targets at a time; any finding fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
work="$(mktemp -d)"
python fuzz/targets.py seeds
status=0
run() {
  local t="$1"
  mkdir -p "$work/$t"
  cp fuzz/corpus/"$t"/* "$work/$t"/
  if python fuzz/targets.py "$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
      -artifact_prefix="$work/crash-$t-" "$work/$t" >"$work/$t.log" 2>&1; then
    echo "fuzz $t: ok, $(grep -o 'Done [0-9]* runs' "$work/$t.log" | tail -1)"
  else
    echo "fuzz $t: FINDING (log below)"; tail -40 "$work/$t.log"; return 1
  fi
}
run trec & p1=$!
run csv & p2=$!
wait $p1 || status=1
wait $p2 || status=1
run parquet & p1=$!
run state & p2=$!
wait $p1 || status=1
wait $p2 || status=1
exit $status
