"""Streaming evaluation at scale (docs/performance.md): a W1 run of N users x 200 items as several parquet files.

    python bench/stream.py --dir /var/tmp/rankmeter-stream --users 1000000 --files 10

generates (once; reused when present) ``recs/part-*.parquet`` (user_id, item_id, rank: N x 200 rows)
and ``truth/part-*.parquet`` (user_id, item_id, relevance: the W1 truth of the same users), then runs,
each in a fresh child process so that its peak RSS is its own:

* ``scan_default``: one plain ``pyarrow.dataset`` scan of the recs columns (``to_batches``, the same
  batch size, pyarrow's default readahead), and ``scan``: the same with the readahead evaluate_stream
  uses (2 batches, 1 file: pyarrow's default holds GBs of decoded rows);
* ``stream``: ``rankmeter.evaluate_stream(truth dir, recs dir, METRICS, batch_rows=...)`` (the truth,
  small here, loaded once), and with ``--stream-truth`` also ``stream_truth``: the same call with
  ``stream_truth=True`` (the truth read in batches alongside the recs, a merge join of the two
  user-sorted datasets), whose peak RSS depends on the batch sizes only;
* ``check``: on the first file pair (a subset that fits in memory), ``rankmeter.evaluate`` in memory and
  ``evaluate_stream`` (batch_rows 1,000,000 and 77,777; ``check_truth`` with ``--stream-truth``: the truth
  streamed too, in batches of 1,000,000 and 33,333 rows), whose means must be bit-identical.

Prints rows/s, seconds and peak RSS of each, and the stream/scan time ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

METRICS = ["precision@10", "recall@10", "ndcg@10", "ap@100", "rr", "hit_rate@10", "ndcg@100", "hits@200"]


def _rss_mib() -> float:
    """Peak RSS of this process in MiB: VmHWM (ru_maxrss keeps the parent's RSS from before the exec)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def generate(directory: str, users: int, files: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    import rankmeter as rm

    os.makedirs(os.path.join(directory, "recs"), exist_ok=True)
    os.makedirs(os.path.join(directory, "truth"), exist_ok=True)
    per = -(-users // files)
    for i in range(files):
        rpath = os.path.join(directory, "recs", f"part-{i:03d}.parquet")
        tpath = os.path.join(directory, "truth", f"part-{i:03d}.parquet")
        if os.path.exists(rpath) and os.path.exists(tpath):
            continue
        n = min(per, users - i * per)
        w = rm.datasets.w1(n, list_len=200, seed=1000 + i)
        first = i * per
        ru = np.repeat(np.arange(first, first + n, dtype=np.int64), 200)
        rank = np.tile(np.arange(1, 201, dtype=np.int32), n)
        pq.write_table(
            pa.table({"user_id": ru, "item_id": w.recs_items.astype(np.int64), "rank": rank}),
            rpath + ".tmp",
            row_group_size=1 << 20,
        )
        os.replace(rpath + ".tmp", rpath)
        tu = np.repeat(np.arange(first, first + n, dtype=np.int64), np.diff(w.truth_indptr))
        pq.write_table(pa.table({"user_id": tu, "item_id": w.truth_items, "relevance": w.truth_grades}), tpath)
        print(f"  wrote {rpath}: {ru.size:,} rows", flush=True)


def child(phase: str, directory: str, batch_rows: int) -> None:
    import pyarrow.dataset as ds

    import rankmeter as rm

    recs, truth = os.path.join(directory, "recs"), os.path.join(directory, "truth")
    out: dict = {"phase": phase}
    if phase in ("scan", "scan_default"):
        # "scan": the reader settings evaluate_stream uses (little readahead); "scan_default": pyarrow's defaults
        kw = {} if phase == "scan_default" else dict(batch_readahead=2, fragment_readahead=1)
        t0 = time.perf_counter()
        rows = 0
        for batch in ds.dataset(recs, format="parquet").to_batches(
            columns=["user_id", "item_id", "rank"], batch_size=batch_rows, **kw
        ):
            rows += batch.num_rows
        out.update(seconds=time.perf_counter() - t0, rows=rows)
    elif phase in ("stream", "stream_truth"):
        t0 = time.perf_counter()
        res = rm.evaluate_stream(
            truth, recs, METRICS, batch_rows=batch_rows, progress=False, stream_truth=phase == "stream_truth"
        )
        out.update(seconds=time.perf_counter() - t0, rows=res.meta["n_rows"], meta=res.meta)
        out["means"] = {k: res[k] for k in METRICS}
    else:
        files = sorted(os.listdir(recs))
        r0, t0_ = os.path.join(recs, files[0]), os.path.join(truth, files[0])
        mem = rm.evaluate(t0_, r0, METRICS)
        same = {}
        for b, tb in ((1_000_000, 1_000_000), (77_777, 33_333)):
            s = rm.evaluate_stream(
                t0_,
                r0,
                METRICS,
                batch_rows=b,
                truth_batch_rows=tb,
                progress=False,
                stream_truth=phase == "check_truth",
            )
            same[b] = all(s[k] == mem[k] for k in METRICS) and s.meta["n_users"] == mem.meta["n_users"]
        out.update(users=mem.meta["n_users"], bit_identical=same, means={k: mem[k] for k in METRICS})
    out["peak_rss_mib"] = _rss_mib()
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/var/tmp/rankmeter-stream")
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--batch-rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=1, help="scan/stream runs (median reported)")
    ap.add_argument("--stream-truth", action="store_true", help="stream the truth alongside (stream_truth=True)")
    ap.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        child(args.phase, args.dir, args.batch_rows)
        return
    t0 = time.perf_counter()
    generate(args.dir, args.users, args.files)
    print(
        f"data: {args.users:,} users x 200 = {args.users * 200:,} rows in {args.files} files "
        f"({time.perf_counter() - t0:.0f} s to generate or check)",
        flush=True,
    )

    def run(phase: str) -> dict:
        cmd = [sys.executable, __file__, "--phase", phase, "--dir", args.dir, "--batch-rows", str(args.batch_rows)]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])

    check = run("check")
    print(
        f"check (first file, {check['users']:,} users): bit-identical means in memory vs streamed "
        f"(batch_rows -> same): {check['bit_identical']}; peak RSS of that child {check['peak_rss_mib']:,.0f} MiB"
    )
    assert all(check["bit_identical"].values()), check
    if args.stream_truth:
        check = run("check_truth")
        assert all(check["bit_identical"].values()), check
        print(
            f"check, truth streamed too: bit-identical (batch_rows -> same): {check['bit_identical']}; "
            f"peak RSS of that child {check['peak_rss_mib']:,.0f} MiB"
        )
    import statistics

    scans, defaults, streams, truths = [], [], [], []
    for _ in range(args.repeats):  # interleaved, so that all see the same page cache and machine load
        scans.append(run("scan"))
        defaults.append(run("scan_default"))
        streams.append(run("stream"))
        if args.stream_truth:
            truths.append(run("stream_truth"))
    default_s = statistics.median(r["seconds"] for r in defaults)
    scan_s = statistics.median(r["seconds"] for r in scans)
    stream_s = statistics.median(r["seconds"] for r in streams)
    rows = streams[0]["rows"]
    print(
        f"pyarrow.dataset scan, default readahead: {default_s:8.1f} s  {rows / default_s:14,.0f} rows/s  "
        f"peak RSS {max(r['peak_rss_mib'] for r in defaults):,.0f} MiB"
    )
    print(
        f"pyarrow.dataset scan, stream's readahead:{scan_s:8.1f} s  {rows / scan_s:14,.0f} rows/s  "
        f"peak RSS {max(r['peak_rss_mib'] for r in scans):,.0f} MiB"
    )
    print(
        f"rankmeter.evaluate_stream (truth loaded):{stream_s:8.1f} s  {rows / stream_s:14,.0f} rows/s  "
        f"peak RSS {max(r['peak_rss_mib'] for r in streams):,.0f} MiB  ({len(METRICS)} metrics)"
    )
    if truths:
        truth_s = statistics.median(r["seconds"] for r in truths)
        print(
            f"evaluate_stream(stream_truth=True):      {truth_s:8.1f} s  {rows / truth_s:14,.0f} rows/s  "
            f"peak RSS {max(r['peak_rss_mib'] for r in truths):,.0f} MiB  (truth streamed alongside)"
        )
        same = all(truths[0]["means"][k] == streams[0]["means"][k] for k in METRICS)
        print(f"stream_truth / truth loaded: {truth_s / stream_s:.2f}x time; means bit-identical: {same}")
        assert same
    print(
        f"stream / scan: {stream_s / scan_s:.2f}x (same readahead), {stream_s / default_s:.2f}x (default)   (medians of {args.repeats}; batch_rows {args.batch_rows:,})"
    )
    print("meta:", streams[0]["meta"])
    print("means:", json.dumps(streams[0]["means"]))


if __name__ == "__main__":
    main()
