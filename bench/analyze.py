#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turns bench/rrul.sh's raw runs into a markdown table and gnuplot PNGs.

    analyze.py RAW OUTDIR NAME [REF_RAW]

RAW/<rate>/<system>.<load>.<rep>.* as rrul.sh leaves them.  Writes
OUTDIR/NAME.md, OUTDIR/NAME.tsv (one row per run) and OUTDIR/NAME-*.png.
REF_RAW, if given, is another run's RAW (the VM's): its fq_codel medians
at the same rate and load become a second reference column.
Only the standard library; gnuplot draws.
"""
import json
import os
import statistics
import subprocess
import sys

REF_SYS = "fifo"
ORDER = ["pfifo_fast", "fifo", "tbf", "red", "sfq", "codel", "fq_codel",
         "cake", "sojourn_nofair", "sojourn", "sojourn_fair", "sojourn_auto", "sojourn_auto_nofair",
         "sojourn_sparse",
         "sojourn_rate"]


def pctl(v, p):
    """nearest-rank percentile, as the tests' pctl does"""
    if not v:
        return float("nan")
    v = sorted(v)
    return v[int(p / 100 * (len(v) - 1) + 0.5)]


def series(path):
    """'t rtt' lines -> (list of (t, rtt)), lost count"""
    pts, lost = [], 0
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) != 2:
                    continue
                if w[1] == "-":
                    lost += 1
                else:
                    pts.append((float(w[0]), float(w[1])))
    except OSError:
        pass
    return pts, lost


def kv(path):
    d = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                for i in range(0, len(w) - 1, 2):
                    d[w[i]] = w[i + 1]
    except OSError:
        pass
    return d


def iperf(path):
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError):
        return None
    if "end" not in j or "sum_received" not in j["end"]:
        return None
    e = j["end"]
    flows = [s["receiver"]["bits_per_second"] / 1e6 for s in e.get("streams", [])]
    return {"mbit": e["sum_received"]["bits_per_second"] / 1e6,
            "retrans": e.get("sum_sent", {}).get("retransmits", 0) or 0,
            "flows": flows}


def jain(x):
    if not x or sum(x) == 0:
        return float("nan")
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def queue_ms(path, mbit):
    """Median of the shaping roots' sampled backlog, as ms at the rate
    (runs before 2026-12-06 have no samples: nan)"""
    try:
        with open(path) as f:
            q = [int(line.split()[1]) for line in f if len(line.split()) == 2]
    except (OSError, ValueError):
        return float("nan")
    if not q or not mbit:
        return float("nan")
    return pctl(q, 50) * 8 / (mbit * 1e3)


def wait_ms(path):
    """Mean wait per packet between the two histogram snapshots (after
    the warm-up, at the end), loaded directions pooled; nan without them"""
    first, last = {}, {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) == 3:
                    (last if w[0] in first else first)[w[0]] = (int(w[1]), int(w[2]))
    except (OSError, ValueError):
        return float("nan")
    n = sum(last[d][0] - first[d][0] for d in last)
    ns = sum(last[d][1] - first[d][1] for d in last)
    return ns / n / 1e6 if n > 0 else float("nan")


def one_run(base, warmup):
    m = kv(base + ".meta")
    if m.get("skipped"):
        return None
    r = {}
    for probe in ("udp", "icmp"):
        idle, _ = series(f"{base}.idle.{probe}")
        load, lost = series(f"{base}.load.{probe}")
        iv, lv = [p[1] for p in idle], [p[1] for p in load]
        r[f"{probe}_idle50"] = pctl(iv, 50)
        r[f"{probe}_idle99"] = pctl(iv, 99)
        r[f"{probe}_load50"] = pctl(lv, 50)
        r[f"{probe}_load99"] = pctl(lv, 99)
        r[f"{probe}_rise50"] = r[f"{probe}_load50"] - r[f"{probe}_idle50"]
        r[f"{probe}_rise99"] = r[f"{probe}_load99"] - r[f"{probe}_idle99"]
        n = len(lv) + lost
        r[f"{probe}_loss"] = 100.0 * lost / n if n else float("nan")
        # steady state: the first `warmup` s (slow start) left out
        t0 = load[0][0] if load else 0
        sv = [p[1] for p in load if p[0] - t0 >= warmup]
        r[f"{probe}_rise99s"] = pctl(sv, 99) - r[f"{probe}_idle99"]
    srtt = []
    try:
        with open(base + ".srtt") as f:
            srtt = [float(line.split()[1]) for line in f if len(line.split()) == 2]
    except OSError:
        pass
    base_rtt = r["icmp_idle50"]
    r["srtt_rise"] = pctl(srtt, 50) - base_rtt
    r["srtt_rise99"] = pctl(srtt, 99) - base_rtt
    r["wait"] = wait_ms(base + ".wait")
    r["queue"] = queue_ms(base + ".queue", rate_key(os.path.basename(os.path.dirname(base))))
    mbit, retrans, jains, ok = 0.0, 0, [], True
    for d in ("up", "down"):
        if not os.path.exists(f"{base}.{d}.json"):
            continue
        i = iperf(f"{base}.{d}.json")
        if i is None:
            ok = False
            continue
        mbit += i["mbit"]
        retrans += i["retrans"]
        jains.append(jain(i["flows"]))
    r["goodput"] = mbit if ok else float("nan")
    r["jain"] = statistics.mean(jains) if jains else float("nan")
    r["retrans"] = retrans
    r["ce"] = int(m.get("ce_up", 0)) + int(m.get("ce_down", 0))
    r["drops"] = int(m.get("qdisc_drops", 0)) + int(m.get("sojourn_drops", 0))
    r["cpu"] = float(m.get("own_cpu", "nan"))
    r["machine_cpu"] = float(m.get("machine_cpu", "nan"))
    r["idle_cpu"] = float(m.get("idle_cpu", "nan"))
    r["loadavg"] = float(m.get("loadavg", "nan"))
    return r


def load_raw(raw):
    """{(rate, load, sys): [run dicts]}, info, delay line stats per rate"""
    runs, dl = {}, {}
    info = kv(os.path.join(raw, "info"))
    warmup = float(info.get("warmup", 0))
    for rate in sorted(os.listdir(raw)):
        d = os.path.join(raw, rate)
        if not os.path.isdir(d):
            continue
        dl[rate] = kv(os.path.join(d, "delayline.stats"))
        for fn in sorted(os.listdir(d)):
            if not fn.endswith(".meta"):
                continue
            sysname, load, rep = fn[:-5].split(".")
            r = one_run(os.path.join(d, fn[:-5]), warmup)
            if r is None:
                continue
            r.update(rate=rate, load=load, sys=sysname, rep=int(rep),
                     base=os.path.join(d, fn[:-5]))
            runs.setdefault((rate, load, sysname), []).append(r)
    return runs, info, dl


def med(rs, k):
    v = [r[k] for r in rs if r[k] == r[k]]
    return statistics.median(v) if v else float("nan")


def spread(rs, k):
    v = [r[k] for r in rs if r[k] == r[k]]
    return (min(v), max(v)) if v else (float("nan"), float("nan"))


def fmt(x, d=1):
    return "-" if x != x else f"{x:.{d}f}"


def cell(rs, k, d=1):
    m = med(rs, k)
    lo, hi = spread(rs, k)
    if len(rs) < 2 or lo != lo:
        return fmt(m, d)
    return f"{fmt(m, d)} ({fmt(lo, d)}..{fmt(hi, d)})"


def ratio(a, b):
    if a != a or b != b or b == 0:
        return "-"
    r = a / b
    return f"{r:.2f}" if abs(r) >= 0.1 else f"{r:.3f}"


def diff(a, b):
    if a != a or b != b:
        return "-"
    return f"{a - b:+.1f}"


# the medians compared with a reference system, in its tables' order
RISES = ("udp_rise99", "udp_rise99s", "icmp_rise99", "srtt_rise")


def row(s, rs, rr, cmp, keys):
    """One system's table row: cmp(its median, the reference's) per key"""
    return f"| {s} | " + " | ".join(cmp(med(rs, k), med(rr, k)) for k in keys) + " |"


def sort_key(s):
    return (ORDER.index(s) if s in ORDER else len(ORDER), s)


def rate_key(rate):
    return float("".join(c for c in rate if c.isdigit() or c == ".") or 0)


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plots(runs, out, name, rates, loads, systems):
    made = []
    tmp = os.path.join(out, f".{name}.plotdata")
    os.makedirs(tmp, exist_ok=True)
    term = "set terminal pngcairo noenhanced size 900,560 font 'sans,10'\n"
    for rate in rates:
        # goodput vs latency: one point per system and load
        lines = []
        for load in loads:
            f = os.path.join(tmp, f"scatter-{rate}-{load}.dat")
            with open(f, "w") as w:
                cap = rate_key(rate) * (2 if load == "both" else 1)
                for s in systems:
                    rs = runs.get((rate, load, s))
                    if rs and cap:
                        w.write(f"{med(rs, 'udp_rise99'):.3f} "
                                f"{100 * med(rs, 'goodput') / cap:.2f} {s}\n")
            lines.append(f"'{f}' using 1:2 with points pt 7 ps 1.5 title '{load}', "
                         f"'{f}' using 1:2:3 with labels offset 1,0.6 "
                         f"font ',8' notitle")
        png = os.path.join(out, f"{name}-scatter-{rate}.png")
        gnuplot(term + f"set output '{png}'\n"
                f"set title 'Goodput vs latency, {rate}: one point per system "
                "(median of repetitions)'\n"
                "set xlabel 'UDP probe RTT rise under load, p99 (ms, log)'\n"
                "set ylabel 'goodput, % of the shaped rate x directions loaded'\n"
                "set logscale x\nset grid\nset key top left\n"
                "plot " + ", ".join(lines) + "\n")
        made.append(png)
        for load in loads:
            # CDF of UDP probe RTT under load, every repetition pooled
            cdf = []
            for s in systems:
                rs = runs.get((rate, load, s))
                if not rs:
                    continue
                v = sorted(p[1] for r in rs
                           for p in series(r["base"] + ".load.udp")[0])
                if not v:
                    continue
                f = os.path.join(tmp, f"cdf-{rate}-{load}-{s}.dat")
                with open(f, "w") as w:
                    for i, x in enumerate(v):
                        w.write(f"{x:.3f} {(i + 1) / len(v):.5f}\n")
                cdf.append(f"'{f}' using 1:2 with lines lw 2 title '{s}'")
            if cdf:
                png = os.path.join(out, f"{name}-cdf-{rate}-{load}.png")
                gnuplot(term + f"set output '{png}'\n"
                        f"set title 'UDP probe RTT under load, {rate}, "
                        f"4 TCP flows {load} (irtt, 20 Hz, all repetitions)'\n"
                        "set xlabel 'RTT (ms, log)'\nset ylabel 'fraction'\n"
                        "set logscale x\nset grid\nset key bottom right\n"
                        "set yrange [0:1]\nplot " + ", ".join(cdf) + "\n")
                made.append(png)
        # latency over time, first repetition, both directions loaded
        load = "both" if "both" in loads else loads[0]
        tl = []
        for s in systems:
            rs = sorted(runs.get((rate, load, s), []), key=lambda r: r["rep"])
            if not rs:
                continue
            f = rs[0]["base"] + ".load.udp"
            pts, _ = series(f)
            if pts:
                g = os.path.join(tmp, f"time-{rate}-{s}.dat")
                t0 = pts[0][0]
                with open(g, "w") as w:
                    for t, x in pts:
                        w.write(f"{t - t0:.3f} {x:.3f}\n")
                tl.append(f"'{g}' using 1:2 with lines title '{s}'")
        if tl:
            png = os.path.join(out, f"{name}-time-{rate}-{load}.png")
            gnuplot(term + f"set output '{png}'\n"
                    f"set title 'UDP probe RTT over time, {rate}, 4 TCP flows "
                    f"{load} (first repetition)'\n"
                    "set xlabel 'time since load start (s)'\n"
                    "set ylabel 'RTT (ms, log)'\nset logscale y\nset grid\n"
                    "set key outside right\nplot " + ", ".join(tl) + "\n")
            made.append(png)
    for fn in os.listdir(tmp):
        os.unlink(os.path.join(tmp, fn))
    os.rmdir(tmp)
    return made


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: analyze.py RAW OUTDIR NAME [REF_RAW]")
    raw, out, name = sys.argv[1:4]
    runs, info, dl = load_raw(raw)
    if not runs:
        sys.exit(f"analyze: no runs under {raw}")
    ref = {}
    if len(sys.argv) > 4 and os.path.isdir(sys.argv[4]):
        ref, _, _ = load_raw(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    rates = sorted({k[0] for k in runs}, key=rate_key)
    loads = [x for x in ("up", "down", "both") if any(k[1] == x for k in runs)]
    systems = sorted({k[2] for k in runs}, key=sort_key)
    refs = [REF_SYS] + (["fq_codel"] if "fq_codel" in systems else [])

    cols = ["udp_idle50", "udp_rise50", "udp_rise99", "udp_rise99s", "icmp_rise50",
            "icmp_rise99", "udp_loss", "srtt_rise", "queue", "wait", "goodput", "jain",
            "retrans", "ce", "drops", "cpu", "machine_cpu", "idle_cpu", "loadavg"]
    with open(os.path.join(out, name + ".tsv"), "w") as w:
        w.write("\t".join(["rate", "load", "system", "rep"] + cols) + "\n")
        for k in sorted(runs):
            for r in sorted(runs[k], key=lambda r: r["rep"]):
                w.write("\t".join([k[0], k[1], k[2], str(r["rep"])] +
                                  [fmt(r[c], 2) for c in cols]) + "\n")

    all_runs = [r for rs in runs.values() for r in rs]
    md = [f"# Latency under load: {name}", "",
          f"Made by `bench/rrul.sh` + `bench/analyze.py` on {info.get('date', '?')}, "
          f"kernel {info.get('kernel', '?')}, {info.get('cpus', '?')} CPUs, "
          f"commit {info.get('commit', '?')} (sojourn binary built "
          f"{info.get('sojourn_built', '?')}). "
          f"{info.get('reps', '?')} interleaved repetitions; each run "
          f"{info.get('idle', '?')} s idle probes then {info.get('secs', '?')} s "
          f"of 4 cubic TCP flows (ECN on) per direction loaded; bulk srtt from "
          f"`ss` every 0.5 s after {info.get('warmup', '?')} s. Base RTT 40 ms "
          + ("(the kernel's netem, 20 ms each way). "
             if info.get("delay") == "netem" else
             "(bench/delayline, 20 ms each way). ")
          + "Cells: median over repetitions "
          "(min..max). See bench/README.md for what each column means.", "",
          "## How noisy the machine was", "",
          f"- CPU busy during the idle phases (our probes plus everyone else "
          f"on this machine): median {fmt(med(all_runs, 'idle_cpu'))} %, "
          f"max {fmt(max(r['idle_cpu'] for r in all_runs))} % of all CPUs; "
          f"1-min load average at run start: median "
          f"{fmt(med(all_runs, 'loadavg'), 2)}, max "
          f"{fmt(max(r['loadavg'] for r in all_runs), 2)}."]
    for rate in rates:
        s = dl.get(rate, {})
        if s.get("kind") == "netem":
            md.append(f"- netem at {rate} (all runs): packets sent "
                      f"{int(s.get('sent_d0', 0)) + int(s.get('sent_d1', 0))}, "
                      f"dropped {int(s.get('dropped_d0', 0)) + int(s.get('dropped_d1', 0))} "
                      "(its own lateness is not measured: it runs in the "
                      "kernel's timers, not in a process).")
        elif s:
            md.append(f"- Delay line at {rate} (all runs): frames forwarded "
                      f"{int(s.get('fwd_ab', 0)) + int(s.get('fwd_ba', 0))}, lost "
                      f"{sum(int(s.get(k, 0)) for k in ('kernel_drops', 'pool_drops', 'tx_errors'))}, "
                      f"late p50 {s.get('late_p50_us')} us, p99 "
                      f"{s.get('late_p99_us')} us, p99.9 {s.get('late_p999_us')} us, "
                      f"max {s.get('late_max_us')} us (how long after its due "
                      "time a frame left).")
    md.append("")
    for rate in rates:
        for load in loads:
            md += [f"## {rate}, 4 TCP flows {load}", "",
                   "| system | UDP idle p50 ms | UDP rise p50 ms | UDP rise p99 ms "
                   "| UDP rise p99 after warm-up ms "
                   "| ICMP rise p50 ms | ICMP rise p99 ms | UDP loss % "
                   "| TCP srtt rise ms | queue ms | wait ms | goodput Mbit/s | Jain "
                   "| retrans | CE | drops | own CPU % | machine CPU % |",
                   "|---|" + "---:|" * 17]
            for s in systems:
                rs = runs.get((rate, load, s))
                if not rs:
                    continue
                md.append(
                    f"| {s} | {cell(rs, 'udp_idle50')} | {cell(rs, 'udp_rise50')} "
                    f"| {cell(rs, 'udp_rise99')} | {cell(rs, 'udp_rise99s')} "
                    f"| {cell(rs, 'icmp_rise50')} "
                    f"| {cell(rs, 'icmp_rise99')} | {cell(rs, 'udp_loss')} "
                    f"| {cell(rs, 'srtt_rise')} | {cell(rs, 'queue')} "
                    f"| {cell(rs, 'wait', 2)} "
                    f"| {cell(rs, 'goodput')} "
                    f"| {cell(rs, 'jain', 3)} | {fmt(med(rs, 'retrans'), 0)} "
                    f"| {fmt(med(rs, 'ce'), 0)} | {fmt(med(rs, 'drops'), 0)} "
                    f"| {fmt(med(rs, 'cpu'))} | {fmt(med(rs, 'machine_cpu'))} |")
            md.append("")
            for rsys in refs + (["fq_codel (VM)"] if ref else []):
                if rsys.endswith("(VM)"):
                    rr = ref.get((rate, load, "fq_codel"))
                else:
                    rr = runs.get((rate, load, rsys))
                if not rr:
                    continue
                others = [(s, runs[(rate, load, s)]) for s in systems
                          if s != rsys and runs.get((rate, load, s))]
                md += [f"Ratios to {rsys} (medians; < 1 is lower):", "",
                       "| system | UDP rise p99 | UDP rise p99 after warm-up "
                       "| ICMP rise p99 | TCP srtt rise | goodput |",
                       "|---|---:|---:|---:|---:|---:|"]
                md += [row(s, rs, rr, ratio, RISES + ("goodput",)) for s, rs in others]
                # a ratio of two rises near 0 (both AQMs keep the probe at
                # its idle delay) says nothing: the differences, in ms
                md += ["", f"Differences to {rsys} (medians, ms; < 0 is lower):", "",
                       "| system | UDP rise p99 | UDP rise p99 after warm-up "
                       "| ICMP rise p99 | TCP srtt rise |",
                       "|---|---:|---:|---:|---:|"]
                md += [row(s, rs, rr, diff, RISES) for s, rs in others]
                md.append("")
    made = plots(runs, out, name, rates, loads, systems)
    md += ["## Plots", ""] + [f"![{os.path.basename(p)}]({os.path.basename(p)})"
                              for p in made] + [""]
    with open(os.path.join(out, name + ".md"), "w") as w:
        w.write("\n".join(md))
    print(f"analyze: {len(all_runs)} runs -> {os.path.join(out, name)}.md, "
          f".tsv and {len(made)} plots")


if __name__ == "__main__":
    main()
