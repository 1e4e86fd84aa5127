"""The GIL is released during compute: two Python threads, two calls, less wall time.

Runs ``evaluate`` (each call single-threaded in C++: ``threads=1``) twice
serially and twice at once from two Python threads, alternating, and reports
the medians and their ratio. With the GIL held the concurrent pair would take
as long as the serial pair (ratio ~1.0); with it released, on 2 free cores,
close to half (ratio ~0.5). The answers of the concurrent calls are checked
against the serial ones.

    python bench/gil_release.py --users 300000 --repeats 9
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import rankmeter as rm

METRICS = [f"{m}@{k}" for k in (10, 100) for m in ("precision", "recall", "ndcg", "map", "mrr")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=300_000)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    w = rm.datasets.w1(args.users, seed=1)
    truth, recs = w.truth, w.recs
    expected = rm.evaluate(truth, recs, METRICS, threads=1)

    def one(out, i):
        out[i] = rm.evaluate(truth, recs, METRICS, threads=1)

    serial, concurrent = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        out: list = [None, None]
        one(out, 0)
        one(out, 1)
        serial.append(time.perf_counter() - t0)

        out = [None, None]
        ths = [threading.Thread(target=one, args=(out, i)) for i in range(2)]
        t0 = time.perf_counter()
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        concurrent.append(time.perf_counter() - t0)
        for r in out:
            assert all(r.per_user[m].tobytes() == expected.per_user[m].tobytes() for m in METRICS)
    s, c = statistics.median(serial), statistics.median(concurrent)
    print(f"users {args.users:,}, {len(METRICS)} metrics, threads=1 per call, {args.repeats} repeats")
    print(f"two serial calls:          median {s:.3f} s")
    print(f"two calls from 2 threads:  median {c:.3f} s")
    print(f"ratio concurrent/serial:   {c / s:.2f}  (1.0 = GIL held; 0.5 = perfect overlap on 2 cores)")


if __name__ == "__main__":
    main()
