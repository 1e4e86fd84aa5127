"""Long differential run against one live peer: ``python -m tests.differential.run PEER --cases 20000 --seed 1``.

Prints the counts (cases, values compared, mismatches, cases the peer raised on, cases listed as not
reproduced) and the first mismatches with the seed of their case (``cases.draw_case(seed, ...)`` draws it
again). Exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys

from .harness import differential


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("peer", help="a module of tests/differential, e.g. rectools")
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="index of the first case (a slice of a longer run)")
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--progress", action="store_true", help="print the counts after every batch")
    a = ap.parse_args(argv)

    def progress(rep) -> None:
        print(f"  {rep.summary()} ({rep.cases / max(rep.seconds, 1e-9):.2f} cases/s)", flush=True)

    rep = differential(a.peer, a.cases, a.seed, batch=a.batch, on_batch=progress if a.progress else None, first=a.first)
    if a.first:
        print(f"cases {a.first} to {a.first + a.cases - 1} of seed {a.seed}")
    print(rep.summary())
    for m in rep.mismatches[:30]:
        print("  mismatch", m)
    return 1 if rep.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
