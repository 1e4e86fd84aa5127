"""Scaling of evaluate(): time and memory vs users, cost per user vs list length, threads.

    python bench/scaling.py                          # full run: 10k..10M users; docs/scaling.md + docs/scaling.png
    python bench/scaling.py --max-users 100000       # a quick (small) run, marked as such in the doc
    python bench/scaling.py --max-users 300000 --memmap-from 100000 --chunk-users 100000
                                                     # exercise the memory-map path on small sizes

Every measured point runs in a child process of its own (``python bench/scaling.py
--child SPEC``), so its memory is its own: the child reads its resident set
(/proc/self/status) before and after building the workload, resets the peak
(``/proc/self/clear_refs``, so ``getrusage(RUSAGE_SELF).ru_maxrss`` restarts
from the current RSS) and reads the peak of the first (untimed) evaluate() call
at each thread count. The doc shows "workload" (RSS growth from building the
CSR buffers and the Truth/Recs containers) and "evaluate() extra" (peak RSS
during the call above the RSS before it, mapped file pages excluded) apart.

Sizes whose W1 buffers (about 1 kB per user: int64 ids, float64 grades, int64
indptr) would not fit comfortably in RAM are built in chunks of
``--chunk-users`` users (``rankmeter.datasets.w1`` with seed + chunk number per
chunk, so the same distribution but not the same draws as one w1 call) into
raw files under ``--tmp`` and evaluated from ``np.memmap`` views of them; the
child checks whether Truth/Recs.from_csr kept the memmap buffers without a copy.
A size goes to a memory map when it is >= ``--memmap-from`` users or when 2.5x
its buffers exceed MemAvailable at the time.

Each timing is the median of ``--repeats`` evaluate() calls of ten accuracy
metrics (precision, recall, f1, map, mar, ndcg, dcg, hit_rate, mrr, arhr) at
the given k, from numpy buffers. The load average is read before and after
each point (the machine may be shared). The plot needs matplotlib (optional).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

NAMES = ("precision", "recall", "f1", "map", "mar", "ndcg", "dcg", "hit_rate", "mrr", "arhr")
ROOT = Path(__file__).resolve().parent.parent
USERS = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
LIST_LENS = (10, 30, 100, 300, 1000)
CUTOFFS = (10, 30, 100, 300, 1000)
MB = 1 << 20


# ---------------------------------------------------------------- child side


def _status_kb() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, val = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[key] = int(val.split()[0])
    return out


def _reset_peak() -> bool:
    """Restart the peak RSS (VmHWM and ru_maxrss) from the current RSS (Linux >= 4.0).

    Free heap memory is first handed back to the system (glibc ``malloc_trim``),
    so that a call reusing memory freed by the build still shows as RSS growth.
    """
    _malloc_trim()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _malloc_trim() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: RSS may then miss reused heap memory
        pass


def _build_memmap(n: int, list_len: int, chunk: int, seed: int, tmp: Path) -> dict[str, np.ndarray]:
    """W1 of n users built chunk by chunk into raw files; returns read-only np.memmap views."""
    import rankmeter as rm

    tmp.mkdir(parents=True, exist_ok=True)
    names = ("truth_items", "truth_grades", "recs_items")
    files = {k: open(tmp / f"{k}.bin", "wb") for k in names}  # noqa: SIM115 - closed below
    t_ptr = np.memmap(tmp / "truth_indptr.bin", dtype=np.int64, mode="w+", shape=(n + 1,))
    r_ptr = np.memmap(tmp / "recs_indptr.bin", dtype=np.int64, mode="w+", shape=(n + 1,))
    t_ptr[0] = r_ptr[0] = 0
    try:
        for i, start in enumerate(range(0, n, chunk)):
            c = min(chunk, n - start)
            w = rm.datasets.w1(c, list_len=list_len, seed=seed + i)
            t_ptr[start + 1 : start + c + 1] = w.truth_indptr[1:] + t_ptr[start]
            r_ptr[start + 1 : start + c + 1] = w.recs_indptr[1:] + r_ptr[start]
            w.truth_items.tofile(files["truth_items"])
            w.truth_grades.tofile(files["truth_grades"])
            w.recs_items.tofile(files["recs_items"])
            del w
    finally:
        for f in files.values():
            f.close()
    t_ptr.flush()
    r_ptr.flush()
    del t_ptr, r_ptr
    out: dict[str, np.ndarray] = {
        "truth_indptr": np.memmap(tmp / "truth_indptr.bin", dtype=np.int64, mode="r"),
        "recs_indptr": np.memmap(tmp / "recs_indptr.bin", dtype=np.int64, mode="r"),
    }
    out["truth_items"] = np.memmap(tmp / "truth_items.bin", dtype=np.int64, mode="r")
    out["truth_grades"] = np.memmap(tmp / "truth_grades.bin", dtype=np.float64, mode="r")
    out["recs_items"] = np.memmap(tmp / "recs_items.bin", dtype=np.int64, mode="r")
    return out


def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Build one workload and time/measure the (k, threads) jobs of ``spec`` on it."""
    import rankmeter as rm

    res: dict[str, Any] = {"n": spec["n"], "list_len": spec["list_len"], "memmap": spec["memmap"]}
    res["simd_path"] = _simd_path(rm)
    res["load_before"] = os.getloadavg()
    s0 = _status_kb()
    t0 = time.perf_counter()
    if spec["memmap"]:
        bufs = _build_memmap(spec["n"], spec["list_len"], spec["chunk"], spec["seed"], Path(spec["tmp"]))
    else:
        w = rm.datasets.w1(spec["n"], list_len=spec["list_len"], seed=spec["seed"])
        bufs = {k: getattr(w, k) for k in ("truth_indptr", "truth_items", "truth_grades", "recs_indptr", "recs_items")}
        del w
    truth = rm.Truth.from_csr(bufs["truth_indptr"], bufs["truth_items"], bufs["truth_grades"])
    recs = rm.Recs.from_csr(bufs["recs_indptr"], bufs["recs_items"])
    res["build_s"] = time.perf_counter() - t0
    res["build_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    res["buffers_mb"] = sum(a.nbytes for a in bufs.values()) / MB
    res["nnz_truth"] = int(bufs["truth_items"].size)
    # zero-copy check: the containers must hold the caller's buffers (memmap or not)
    pairs = {
        "truth.indptr": (truth.indptr, bufs["truth_indptr"]),
        "truth.items": (truth.items, bufs["truth_items"]),
        "truth.grades": (truth.grades, bufs["truth_grades"]),
        "recs.indptr": (recs.indptr, bufs["recs_indptr"]),
        "recs.items": (recs.items, bufs["recs_items"]),
    }
    res["copied"] = [k for k, (a, b) in pairs.items() if a is None or not np.shares_memory(a, b)]
    s1 = _status_kb()
    res["rss_base_mb"] = s0["VmRSS"] / 1024
    res["workload_mb"] = (s1["VmRSS"] - s0["VmRSS"]) / 1024
    res["peak_reset"] = _reset_peak()

    jobs = []
    peak_all_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for k, threads in spec["jobs"]:
        metrics = [f"{m}@{k}" for m in NAMES]
        _reset_peak()
        before = _status_kb()
        t1 = time.perf_counter()
        r = rm.evaluate(truth, recs, metrics, threads=threads)  # first call: untimed (warm), measured for memory
        first_s = time.perf_counter() - t1
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak_all_kb = max(peak_all_kb, peak_kb)
        after = _status_kb()
        del r
        gc.collect()  # older rankmeter versions left Result <-> per_user cycles to the cyclic GC
        file_growth = max(0, after["RssFile"] - before["RssFile"])
        ts = []
        for _ in range(spec["repeats"]):
            t1 = time.perf_counter()
            rm.evaluate(truth, recs, metrics, threads=threads)
            ts.append(time.perf_counter() - t1)
            gc.collect()  # outside the timing: see above
        peak_rep_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # first call and the repeats
        peak_all_kb = max(peak_all_kb, peak_rep_kb)
        rep_growth = max(0, _status_kb()["RssFile"] - before["RssFile"])
        jobs.append(
            {
                "k": k,
                "threads": threads,
                "median_s": statistics.median(ts),
                "min_s": min(ts),
                "max_s": max(ts),
                "first_s": first_s,
                "eval_extra_mb": max(0, peak_kb - before["VmRSS"] - file_growth) / 1024 if res["peak_reset"] else None,
                "repeat_extra_mb": max(0, peak_rep_kb - before["VmRSS"] - rep_growth) / 1024
                if res["peak_reset"]
                else None,
                "file_pages_mb": after["RssFile"] / 1024,
            }
        )
    res["jobs"] = jobs
    res["load_after"] = os.getloadavg()
    peak_all_kb = max(peak_all_kb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    res["child_peak_mb"] = max(res["build_peak_mb"], peak_all_kb / 1024)
    return res


def _simd_path(rm: Any) -> str:
    f = getattr(getattr(rm, "_core", None), "simd_path", None)
    if f is None:
        return "n/a"
    try:
        return str(f())
    except Exception as e:  # the function is new; a failure here must not cost the run
        return f"n/a ({type(e).__name__})"


# --------------------------------------------------------------- parent side


def mem_available_mb() -> float:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return float("inf")


def est_buffers_mb(n: int, list_len: int) -> float:
    """W1 CSR bytes: recs ids, two indptrs, about 10.9 truth (id, grade) pairs per user."""
    return n * (list_len * 8 + 16 + 10.9 * 16) / MB


def spawn(spec: dict[str, Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if p.returncode != 0:
        raise SystemExit(f"child for {spec} failed with code {p.returncode}:\n{p.stdout}")
    line = [s for s in p.stdout.splitlines() if s.startswith("RESULT ")][-1]
    res = json.loads(line[len("RESULT ") :])
    res["wall_s"] = time.perf_counter() - t0
    return res


def job(res: dict[str, Any], k: int, threads: int) -> dict[str, Any]:
    return next(j for j in res["jobs"] if j["k"] == k and j["threads"] == threads)


def load(x: list[float]) -> str:
    return "/".join(f"{v:.1f}" for v in x)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem_gb = float("nan")
    try:
        with open("/proc/meminfo") as f:
            mem_gb = int(next(line for line in f if line.startswith("MemTotal:")).split()[1]) / (1 << 20)
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, {mem_gb:.1f} GiB RAM, {platform.system()} {platform.release()}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-users", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--memmap-from", type=int, default=10_000_000, help="users from which W1 is built into memmaps")
    ap.add_argument("--chunk-users", type=int, default=1_000_000, help="users per chunk of a memmap build")
    ap.add_argument("--list-users", type=int, default=100_000, help="users of the list-length sweep")
    ap.add_argument("--thread-counts", default="1,2,3,4", help="thread counts of the threads section")
    ap.add_argument("--tmp", default=None, help="directory for memmap files (default: a fresh temp dir, deleted)")
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print("RESULT " + json.dumps(run_child(json.loads(args.child))), flush=True)
        return 0

    import rankmeter as rm

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp_root = Path(args.tmp) if args.tmp else Path(tempfile.mkdtemp(prefix="rankmeter-scaling-"))
    own_tmp = args.tmp is None
    thread_counts = [int(s) for s in args.thread_counts.split(",") if s.strip()]
    t_start = time.perf_counter()
    try:
        users = [n for n in USERS if n <= args.max_users]
        n_thr = max([n for n in users if n <= 1_000_000] or [min(USERS)])
        rows_u = []
        for n in users:
            extra = [(10, t) for t in thread_counts if t not in (1, 2)] if n == n_thr else []
            big = est_buffers_mb(n, 100) * 2.5 > mem_available_mb()
            spec = {
                "n": n,
                "list_len": 100,
                "memmap": n >= args.memmap_from or big,
                "chunk": args.chunk_users,
                "seed": 0,
                "tmp": str(tmp_root / f"w1_{n}"),
                "repeats": args.repeats,
                "jobs": [(10, 1), (10, 2), *extra],
            }
            res = spawn(spec)
            res["memmap_reason"] = (
                "" if not spec["memmap"] else ("--memmap-from" if n >= args.memmap_from else "MemAvailable")
            )
            shutil.rmtree(spec["tmp"], ignore_errors=True)
            rows_u.append(res)
            a, b = job(res, 10, 1), job(res, 10, 2)
            print(
                f"users {n:>10,} ({'memmap' if res['memmap'] else 'RAM'}): 1 thread {a['median_s']:.4f} s, "
                f"2 threads {b['median_s']:.4f} s; workload {res['workload_mb']:.0f} MB, "
                f"evaluate extra {b['eval_extra_mb'] or 0:.0f} MB, child peak {res['child_peak_mb']:.0f} MB, "
                f"load {load(res['load_before'])} -> {load(res['load_after'])}, wall {res['wall_s']:.1f} s",
                flush=True,
            )

        n_l = min(args.list_users, args.max_users)
        rows_l = []
        for length in LIST_LENS:
            jobs = [(length, 1), (length, 2)] + ([(10, 1), (10, 2)] if length != 10 else [])
            if length == max(LIST_LENS):
                jobs += [(k, 1) for k in CUTOFFS if k not in (10, length)]
            spec = {
                "n": n_l,
                "list_len": length,
                "memmap": False,
                "chunk": args.chunk_users,
                "seed": 0,
                "tmp": "",
                "repeats": args.repeats,
                "jobs": jobs,
            }
            res = spawn(spec)
            rows_l.append(res)
            a, b = job(res, length, 1), job(res, length, 2)
            print(
                f"list {length:>5} ({n_l:,} users): k={length} 1 thread {a['median_s'] / n_l * 1e6:.3f} µs/user, "
                f"2 threads {b['median_s'] / n_l * 1e6:.3f} µs/user; load {load(res['load_before'])} -> "
                f"{load(res['load_after'])}",
                flush=True,
            )
    finally:
        if own_tmp:
            shutil.rmtree(tmp_root, ignore_errors=True)
    total_s = time.perf_counter() - t_start

    write_doc(args, rm, rows_u, rows_l, n_thr, thread_counts, total_s, out)
    plot(rows_u, rows_l, out, args.max_users >= max(USERS) and args.list_users >= 100_000)
    return 0


def write_doc(args, rm, rows_u, rows_l, n_thr, thread_counts, total_s, out: Path) -> None:
    cmd = "python bench/scaling.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    simd = rows_u[0]["simd_path"] if rows_u else "n/a"
    full = args.max_users >= max(USERS) and args.list_users >= 100_000
    md = ["# Scaling of `evaluate`\n"]
    if not full:
        md += [
            f"> **Small run** (`--max-users {args.max_users:,}`, list sweep on {min(args.list_users, args.max_users):,} "
            "users): a check of the script, not the full regeneration. Run `python bench/scaling.py` "
            "(10k to 10M users) on a quiet machine for the real figures. Under a load average well above the "
            "core count, a second OpenMP thread seldom gets a core of its own, so 2-thread times can be slower "
            "than 1-thread ones here.\n"
        ]
    md += [
        f"Machine: {machine()}. Python {platform.python_version()}, numpy {np.__version__}, "
        f"rankmeter {rm.__version__}; list scan: `{simd}` (`rankmeter._core.simd_path()`, n/a when absent).\n",
        f"Command: `{cmd.strip()}` (total {total_s:.0f} s). Every point is a child process of its own; "
        f"times are medians of {args.repeats} calls after one untimed call, ten accuracy metrics per call "
        f"({', '.join(NAMES)}) from numpy CSR buffers. The load average (1 min / 5 min / 15 min) was read "
        "before and after each point: the machine is shared, so read the figures beside it.\n",
        "Memory: *workload* is the RSS growth from building the W1 buffers and the `Truth`/`Recs` containers; "
        "*evaluate() extra* is the peak RSS of the first call above the RSS before it (free heap handed back "
        "with glibc `malloc_trim(0)`, then the peak reset through `/proc/self/clear_refs` and read with "
        "`getrusage(RUSAGE_SELF).ru_maxrss`), growth of mapped file pages (shared libraries, memory maps) "
        "excluded; it includes the result's per-user columns (10 metrics × users × 8 bytes). *after repeats* is "
        "the same peak over that first call and the timed repeats (glibc keeps freed heap for reuse). The script "
        "calls `gc.collect()` after each call, outside the timing (before rankmeter's fix of that stop, a "
        "dropped Result kept its per-user columns until the cyclic garbage collector ran). "
        "*child peak* is the whole child process, build temporaries and (for memory-mapped sizes) the mapped "
        "pages of the buffer files included; those are page cache, shared and reclaimable.\n",
    ]
    mm_rows = [r for r in rows_u if r["memmap"]]
    if mm_rows:
        copied = sorted({c for r in mm_rows for c in r["copied"]})
        md.append(
            "Memory-mapped sizes: "
            + ", ".join(f"{r['n']:,} ({r['memmap_reason']})" for r in mm_rows)
            + f". They were built in chunks of {args.chunk_users:,} users (w1 with seed + chunk number) into raw "
            "files and evaluated from read-only `np.memmap` views (files in the page cache after the build; the "
            "untimed first call reads them in). `Truth.from_csr`/`Recs.from_csr` "
            + ("kept every memmap buffer without a copy." if not copied else f"copied: {', '.join(copied)}.")
            + "\n"
        )
    md += [
        "## Users (W1: lists of 100, k = 10)\n",
        "| users | source | buffers MB | workload MB | evaluate() extra MB (1 / 2 threads) "
        "| after repeats MB (1 / 2 threads) | child peak MB "
        "| 1 thread s | 2 threads s | speed-up | µs per user (1 / 2 threads) | load before → after |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows_u:
        a, b = job(r, 10, 1), job(r, 10, 2)
        ex = "/".join("n/a" if j["eval_extra_mb"] is None else f"{j['eval_extra_mb']:.0f}" for j in (a, b))
        rx = "/".join("n/a" if j["repeat_extra_mb"] is None else f"{j['repeat_extra_mb']:.0f}" for j in (a, b))
        md.append(
            f"| {r['n']:,} | {'memmap' if r['memmap'] else 'RAM'} | {r['buffers_mb']:.0f} | {r['workload_mb']:.0f} "
            f"| {ex} | {rx} | {r['child_peak_mb']:.0f} | {a['median_s']:.4f} | {b['median_s']:.4f} "
            f"| {a['median_s'] / b['median_s']:.2f}x | {a['median_s'] / r['n'] * 1e6:.3f} / "
            f"{b['median_s'] / r['n'] * 1e6:.3f} | {load(r['load_before'])} → {load(r['load_after'])} |"
        )
    rt = next((r for r in rows_u if r["n"] == n_thr), None)
    if rt is not None:
        base = job(rt, 10, 1)["median_s"]
        md += [
            "",
            f"## Threads (W1, {n_thr:,} users, k = 10; {os.cpu_count()} logical cores)\n",
            "| threads | seconds (median, min–max) | speed-up over 1 |",
            "|---:|---:|---:|",
        ]
        for t in sorted({1, 2, *thread_counts}):
            j = job(rt, 10, t)
            md.append(
                f"| {t} | {j['median_s']:.4f} ({j['min_s']:.4f}–{j['max_s']:.4f}) | {base / j['median_s']:.2f}x |"
            )
        md.append(f"\nLoad before → after: {load(rt['load_before'])} → {load(rt['load_after'])}.")
    if rows_l:
        n_l = rows_l[0]["n"]
        md += [
            "",
            f"## Cost per user as lists grow ({n_l:,} users, W1 distribution, lists of L items)\n",
            "k = L reads the whole list; k = 10 reads its first 10 items. ns per item divides the time by "
            "users × min(k, L), the list items read.\n",
            "| L | k | 1 thread µs/user | 2 threads µs/user | 1 thread ns/item | 2 threads ns/item "
            "| evaluate() extra MB (2 threads) | load before → after |",
            "|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in rows_l:
            length = r["list_len"]
            for k in sorted({length, 10}):
                a, b = job(r, k, 1), job(r, k, 2)
                ex = "n/a" if b["eval_extra_mb"] is None else f"{b['eval_extra_mb']:.0f}"
                md.append(
                    f"| {length} | {k} | {a['median_s'] / n_l * 1e6:.3f} | {b['median_s'] / n_l * 1e6:.3f} "
                    f"| {a['median_s'] / (n_l * min(k, length)) * 1e9:.2f} "
                    f"| {b['median_s'] / (n_l * min(k, length)) * 1e9:.2f} | {ex} "
                    f"| {load(r['load_before'])} → {load(r['load_after'])} |"
                )
        rk = rows_l[-1]
        length = rk["list_len"]
        md += [
            "",
            f"## Cutoff k ({n_l:,} users, lists of {length}, 1 thread)\n",
            "| k | seconds | µs per user |",
            "|---:|---:|---:|",
        ]
        md += [
            f"| {k} | {job(rk, k, 1)['median_s']:.4f} | {job(rk, k, 1)['median_s'] / n_l * 1e6:.3f} |"
            for k in CUTOFFS
            if k <= length
        ]
    md += ["", "![scaling](scaling.png)"]
    (out / "scaling.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


def plot(rows_u, rows_l, out: Path, full: bool) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: table only")
        return
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(15, 4.3))
    xs = [r["n"] for r in rows_u]
    for t, mk in ((1, "o-"), (2, "s-")):
        a1.loglog(xs, [job(r, 10, t)["median_s"] for r in rows_u], mk, label=f"{t} thread{'s' if t > 1 else ''}")
    mm = [r for r in rows_u if r["memmap"]]
    if mm:
        a1.loglog([r["n"] for r in mm], [job(r, 10, 2)["median_s"] for r in mm], "kx", ms=10, label="from a memory map")
    a1.set_xlabel("users (W1, lists of 100, k = 10)")
    a1.set_ylabel("seconds per evaluate (10 metrics)")
    a1.set_title("time")
    a1.legend()
    a1.grid(True, which="both", alpha=0.3)

    a2.loglog(xs, [r["buffers_mb"] for r in rows_u], "o-", label="W1 buffers (nbytes)")
    a2.loglog(xs, [max(r["workload_mb"], 1e-1) for r in rows_u], "^-", label="workload RSS (RAM builds)")
    ex = [(r["n"], job(r, 10, 2)["eval_extra_mb"]) for r in rows_u if job(r, 10, 2)["eval_extra_mb"] is not None]
    if ex:
        a2.loglog([e[0] for e in ex], [max(e[1], 1e-1) for e in ex], "s-", label="evaluate() extra peak (2 threads)")
    a2.loglog(xs, [r["child_peak_mb"] for r in rows_u], "d--", label="child process peak")
    a2.set_xlabel("users")
    a2.set_ylabel("MB")
    a2.set_title("memory")
    a2.legend(fontsize=8)
    a2.grid(True, which="both", alpha=0.3)

    if rows_l:
        n_l = rows_l[0]["n"]
        ls = [r["list_len"] for r in rows_l]
        for k_full, t, mk in ((True, 1, "o-"), (True, 2, "s-"), (False, 1, "o--"), (False, 2, "s--")):
            ys = [job(r, r["list_len"] if k_full else 10, t)["median_s"] / n_l * 1e6 for r in rows_l]
            a3.loglog(ls, ys, mk, label=f"k = L, {t} thr" if k_full else f"k = 10, {t} thr")
        a3.set_xlabel(f"list length L ({n_l:,} users)")
        a3.set_ylabel("µs per user")
        a3.set_title("cost per user vs list length")
        a3.legend(fontsize=8)
        a3.grid(True, which="both", alpha=0.3)
    small = "" if full else " - SMALL RUN, not the full regeneration"
    fig.suptitle(f"rankmeter.evaluate scaling ({os.cpu_count()}-core machine){small}")
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=110)
    print(f"wrote {out / 'scaling.png'}")


if __name__ == "__main__":
    raise SystemExit(main())
