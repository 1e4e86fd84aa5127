#!/usr/bin/env bash
# One-minute smoke run of each fuzz target (CI): trec, csv, parquet, state, the reader-only trec_read,
# csv_read, parquet_read (see fuzz/README.md). Usage: bash fuzz/smoke.sh [seconds per target]
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
# two at a time: the evaluate-after targets, then the reader-only ones
for pair in "trec csv" "parquet state" "trec_read csv_read" "parquet_read walk" "trec_nested"; do
  pids=()
  for t in $pair; do run "$t" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
done
exit $status
