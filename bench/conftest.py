"""Shared fixtures of the benchmarks: W1 workloads at geometric sizes.

Sizes come from RANKMETER_BENCH_SIZES (comma separated user counts; default
10000,100000). Add 1000000 for the full W1 (1M users, docs/performance.md), e.g.
``RANKMETER_BENCH_SIZES=10000,100000,1000000 python -m pytest bench --benchmark-enable``.
"""

import os

import pytest

import rankmeter as rm

SIZES = [int(s) for s in os.environ.get("RANKMETER_BENCH_SIZES", "10000,100000").split(",") if s.strip()]
_cache: dict = {}


def workload(n_users: int) -> "rm.datasets.Workload":
    if n_users not in _cache:
        _cache[n_users] = rm.datasets.w1(n_users, seed=0)
    return _cache[n_users]


@pytest.fixture(params=SIZES, ids=lambda n: f"{n}users")
def w1(request):
    return workload(request.param)
