#!/usr/bin/env bash
# Build one virtual environment per peer (they pin incompatible numpy/pandas
# versions), under ${RANKMETER_PEERS:-$HOME/.cache/rankmeter-peers}/<name>.
# bench/compare.py finds them there and exchanges the workload as .npz files.
#
#   bash bench/peers/setup.sh            # every peer
#   bash bench/peers/setup.sh ranx torch # some of them
#   bash bench/peers/setup.sh --reuse ranx  # keep a peer whose earlier install
#                                           # succeeded (CI); the default rebuilds
set -u
REUSE=0
if [ "${1:-}" = "--reuse" ]; then REUSE=1; shift; fi
ROOT=${RANKMETER_PEERS:-$HOME/.cache/rankmeter-peers}
PY=${PYTHON:-python3}
mkdir -p "$ROOT"

want() { [ $# -eq 0 ] && return 0; for x in "${SELECTED[@]}"; do [ "$x" = "$1" ] && return 0; done; return 1; }
SELECTED=("$@")
[ ${#SELECTED[@]} -eq 0 ] && SELECTED=(ranx pytrec_eval ir_measures torch rectools msr evidently recm implicit)

mk() {  # mk NAME pip-args...
  local name=$1; shift
  want "$name" || return 0
  if [ "$REUSE" = 1 ] && [ -f "$ROOT/$name/.rankmeter-ok" ] && [ -x "$ROOT/$name/bin/python" ]; then
    echo "== $name: reusing $ROOT/$name"
    return 0
  fi
  echo "== $name: $*"
  rm -rf "$ROOT/$name"
  "$PY" -m venv "$ROOT/$name" || return 1
  "$ROOT/$name/bin/pip" install -q "$@" > "$ROOT/$name.log" 2>&1 \
    && echo "   ok" || { echo "   FAILED (see $ROOT/$name.log)"; return 1; }
  touch "$ROOT/$name/.rankmeter-ok"
}

mk ranx        ranx
mk pytrec_eval pytrec-eval-terrier numpy
# ir_measures with the providers its default pipeline uses for rankmeter's measures
# (pytrec_eval-terrier comes with it; cwl_eval for RBP; gdeval for ERR needs perl)
mk ir_measures ir_measures==0.4.3 cwl-eval
mk torch       torch==2.13.0 torchmetrics
mk rectools    rectools "numpy<2"
# Microsoft Recommenders: only python_evaluation is used; its full dependency
# set (tensorflow, lightgbm, ...) is not needed for that module.
mk msr         "pandas<2.3" "numpy<2" scikit-learn scipy && \
  "$ROOT/msr/bin/pip" install -q --no-deps recommenders >> "$ROOT/msr.log" 2>&1
mk evidently   evidently "pandas<3"
# recmetrics pins pandas<2 and matplotlib<3.9; ml_metrics only builds with an
# old setuptools and no build isolation.
mk recm        recmetrics "numpy<2" "pandas<2" "matplotlib<3.9" "setuptools<58" wheel && \
  "$ROOT/recm/bin/pip" install -q --no-build-isolation ml_metrics >> "$ROOT/recm.log" 2>&1
mk implicit    implicit
echo "peers in $ROOT"
