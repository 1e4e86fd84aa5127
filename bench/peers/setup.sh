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
[ ${#SELECTED[@]} -eq 0 ] && SELECTED=(ranx pytrec_eval ir_measures torch rectools recbole msr evidently recm implicit beir cornac replay recpack lenskit fairranktune jurity rexmex)

# mk NAME pip-args...: builds the venv; AFTER (a command run with the venv's pip
# as "$PIP", e.g. a --no-deps install) is run only when NAME was built here.
mk() {
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
    || { echo "   FAILED (see $ROOT/$name.log)"; return 1; }
  if [ -n "${AFTER:-}" ]; then
    PIP="$ROOT/$name/bin/pip" bash -c "$AFTER" >> "$ROOT/$name.log" 2>&1 \
      || { echo "   FAILED (see $ROOT/$name.log)"; return 1; }
  fi
  echo "   ok"
  touch "$ROOT/$name/.rankmeter-ok"
}
STATUS=0

mk ranx        ranx || STATUS=1
mk pytrec_eval pytrec-eval-terrier numpy || STATUS=1
# ir_measures with the providers its default pipeline uses for rankmeter's measures
# (pytrec_eval-terrier comes with it; cwl_eval for RBP; gdeval for ERR needs perl; pandas: the qrels DataFrame
# tests/differential/worker_ndeval.py hands ir_measures)
mk ir_measures ir_measures==0.4.3 cwl-eval pyndeval==0.0.8 pandas || STATUS=1
# torch 2.13.0 CPU (a wheel on this machine's disk); scikit-learn for its
# ndcg_score/dcg_score/top_k_accuracy_score (tests/conformance).
mk torch       torch==2.13.0 torchmetrics scikit-learn || STATUS=1
mk rectools    rectools "numpy<2" || STATUS=1
# RecBole 1.2.1: only recbole.evaluator is used (its Collector and GAUC, tests/compat/test_gauc_recbole.py); its
# training dependencies (ray, hyperopt, lightgbm, xgboost, ...) are not needed for it.
AFTER='"$PIP" install -q --no-deps recbole==1.2.1' \
  mk recbole   torch==2.13.0 numpy pandas scipy scikit-learn tensorboard colorlog colorama pyyaml texttable tqdm \
  || STATUS=1
# Microsoft Recommenders: only python_evaluation is used; its full dependency
# set (tensorflow, lightgbm, ...) is not needed for that module.
AFTER='"$PIP" install -q --no-deps recommenders' \
  mk msr       "pandas<2.3" "numpy<2" scikit-learn scipy || STATUS=1
mk evidently   evidently "pandas<3" || STATUS=1
# recmetrics pins pandas<2 and matplotlib<3.9; ml_metrics only builds with an
# old setuptools and no build isolation.
AFTER='"$PIP" install -q --no-build-isolation ml_metrics' \
  mk recm      recmetrics "numpy<2" "pandas<2" "matplotlib<3.9" "setuptools<58" wheel || STATUS=1
# The current GitHub source of recmetrics (mapk, prediction_coverage(..., unseen_warning)), which no
# release holds, beside the release in recm/github (tests/differential/worker_recmetrics.py loads it);
# also added to a reused venv that lacks it.
RECM_GITHUB=b21222d3896f94960058824d1507414b98bf80f3
if want recm && [ -x "$ROOT/recm/bin/python" ] && [ ! -f "$ROOT/recm/github/recmetrics/metrics.py" ]; then
  echo "== recm: recmetrics' GitHub source $RECM_GITHUB into $ROOT/recm/github"
  mkdir -p "$ROOT/recm/github" && curl -fsSL \
    "https://github.com/statisticianinstilettos/recmetrics/archive/$RECM_GITHUB.tar.gz" \
    | tar -xz -C "$ROOT/recm/github" --strip-components=1 \
      "recmetrics-$RECM_GITHUB/recmetrics" "recmetrics-$RECM_GITHUB/LICENSE" \
    || { echo "   unavailable (GitHub not reachable): the differential run compares recmetrics' release only," \
              "and tests/differential/test_recmetrics.py skips its GitHub-only functions with that reason"; \
         rm -rf "$ROOT/recm/github"; }
fi
mk implicit    implicit || STATUS=1
# Cornac: only its ranking metrics are used (tests/differential/cornac.py)
mk cornac      "cornac==3.0.*" || STATUS=1
# RePlay 0.22 (replay-rec, polars/pandas, no Spark or torch needed for its metrics): tests/differential/replay.py,
# its Surprisal in tests/compat/test_popularity_replay.py
mk replay      replay-rec==0.22.0 || STATUS=1
# RecPack 0.3.6: only recpack.metrics is used (IPSHitRateK, tests/differential/test_recpack.py); the dependencies
# of its algorithms (torch, hyperopt) are not needed for it.
AFTER='"$PIP" install -q --no-deps recpack==0.3.6' \
  mk recpack   "numpy<2" "scipy<2" "scikit-learn<2" "pandas>=2.1.4,<3" pyyaml tqdm || STATUS=1
# LensKit 2025.8.1, the newest release for Python 3.11 (2026.x needs 3.12): only lenskit.metrics is used
# (tests/differential/lenskit.py); torch pinned to the CPU wheel on this machine's disk; pytest and hypothesis
# run LensKit's own metric tests against the preset (tests/conformance/test_lenskit_suite.py)
mk lenskit     torch==2.13.0 lenskit==2025.8.1 pytest hypothesis || STATUS=1
# LensKit's tests/eval of the same release (not in its wheel) are vendored in tests/conformance/vendored/lenskit/
# BEIR: only beir.retrieval.evaluation is used (pytrec_eval-terrier, and tqdm for its logging module); its
# models' dependencies (sentence-transformers, torch, datasets) are not needed for it.
AFTER='"$PIP" install -q --no-deps beir==2.2.0' \
  mk beir      pytrec-eval-terrier numpy tqdm || STATUS=1
# Fairness peers (tests/differential/fairranktune.py, jurity.py, rexmex.py; docs/fairness.md "Equal to the other
# tools"): FairRankTune 0.0.7, jurity 2.1.0 and rexmex 0.1.3 install on Python 3.11; FairRankTune declares no
# dependency (it imports numpy and pandas), rexmex imports six without declaring it.
mk fairranktune FairRankTune==0.0.7 numpy pandas || STATUS=1
mk jurity      jurity==2.1.0 || STATUS=1
mk rexmex      rexmex==0.1.3 six || STATUS=1
echo "peers in $ROOT"
exit $STATUS
