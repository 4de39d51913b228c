#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Pools the repetitions of several bench runs against one reference.

    pool.py [-r REF] [-k COLUMN] [-d] TSV...

Each TSV is one of analyze.py's NAME.tsv files, one run.  One run of 3 to
8 repetitions read one law's 20 Mbit download srtt ratio as 1.13
(vm-20r6) and 0.92 (vm-20d8) on this machine, so a single run cannot say
whether a ratio bar is met; several runs together can.

Runs are not pooled as raw values: the machine's load moves every
system's figures from run to run (fq_codel's own median srtt rise read
6.9 ms in one run and 10.2 in another), and a system measured only in the
slow run would look worse.  So each repetition's value is divided by its
own run's REF median (same rate and load), and those normalised values
are pooled.  Per rate, load and system: runs, repetitions, the pooled
median and mean of the normalised values (the ratio to REF), each run's
own ratio of medians, and a 90 % bootstrap interval of the pooled median
(resampled within each run, REF as well; 10000 rounds, seeded: the same
files print the same).  COLUMN is srtt_rise unless told, REF fq_codel.
With -d each value less its run's REF median is pooled instead: for a
column whose REF median can be near 0 (a probe's p99 rise), where a ratio
says nothing.  Prints markdown.  Only the standard library.
"""
import argparse
import random
import statistics


def load(path, column):
    """{(rate, load, system): [value per repetition]} of one run"""
    run = {}
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        at = {name: i for i, name in enumerate(head)}
        for line in f:
            w = line.rstrip("\n").split("\t")
            try:
                v = float(w[at[column]])
            except (ValueError, IndexError):
                continue	# "-": not measured in that run
            key = (w[at["rate"]], w[at["load"]], w[at["system"]])
            run.setdefault(key, []).append(v)
    return run


def normalised(pairs, diff, pick=lambda v: v):
    """pairs: [(values, ref values)] per run -> pooled values / ref median
    (values - ref median with diff)"""
    out = []
    for v, ref in pairs:
        m = statistics.median(pick(ref))
        if diff:
            out += [x - m for x in pick(v)]
        elif m > 0:
            out += [x / m for x in pick(v)]
    return out


def interval(pairs, diff, rounds=10000, seed=1):
    """90 % interval of the pooled normalised median, resampled per run"""
    rng = random.Random(seed)
    rs = []
    for _ in range(rounds):
        pooled = normalised(pairs, diff,
                            lambda s: rng.choices(s, k=len(s)))
        if pooled:
            rs.append(statistics.median(pooled))
    rs.sort()
    return rs[int(0.05 * len(rs))], rs[int(0.95 * len(rs))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--ref", default="fq_codel")
    ap.add_argument("-k", "--column", default="srtt_rise")
    ap.add_argument("-d", "--diff", action="store_true",
                    help="differences to REF's median, not ratios")
    ap.add_argument("tsv", nargs="+")
    o = ap.parse_args()
    runs = [load(p, o.column) for p in o.tsv]
    # (rate, load, system) -> [(values, ref values)], runs with both
    pairs = {}
    for run in runs:
        for (rate, load_, system), v in run.items():
            ref = run.get((rate, load_, o.ref))
            if ref and system != o.ref:
                pairs.setdefault((rate, load_, system), []).append((v, ref))
    what = "difference" if o.diff else "ratio"
    print(f"{o.column} against {o.ref} in the same run, pooled over "
          f"{len(o.tsv)} runs: " + ", ".join(o.tsv) + "\n")
    print(f"| rate | load | system | runs | n | median {what} | mean {what} "
          f"| 90 % interval | each run's {what} of medians |")
    print("|---|---|---|---:|---:|---:|---:|---|---|")
    for (rate, load_, system), p in sorted(pairs.items()):
        if not o.diff:	# a ratio to a REF median of 0 or below says nothing
            p = [(v, r) for v, r in p if statistics.median(r) > 0]
        pooled = normalised(p, o.diff)
        if not pooled:
            continue
        lo, hi = interval(p, o.diff)
        each = " / ".join(
            f"{statistics.median(v) - statistics.median(r):+.2f}" if o.diff
            else f"{statistics.median(v) / statistics.median(r):.2f}"
            for v, r in p)
        print(f"| {rate} | {load_} | {system} | {len(p)} | {len(pooled)} "
              f"| {statistics.median(pooled):.3f} "
              f"| {statistics.mean(pooled):.3f} | {lo:.2f}..{hi:.2f} "
              f"| {each} |")


if __name__ == "__main__":
    main()
