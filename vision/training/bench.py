"""``sushicam bench``: how long one photo takes to read on this machine, by photo size.

Photos are rendered (``compose_table``: a whole table of 2-5 seats, or one tableau) at each
size asked, then read as ``sushicam detect --seats N`` reads them (recognition, the seat split
and the tableaux; decoding the file excluded). The first read of each size is a warm-up and
is not counted. The machine may be shared: the report gives the load average beside the
times, and the CPU time the reading took (all its threads together), which other jobs on the
cores do not inflate as they do the wall time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np


def bench_photos(model_dir: Path, sizes: list[tuple[int, int]], photos: int = 5, threads: int = 2,
                 seed: int = 4242) -> dict:
    from vision.describe import describe_image
    from vision.recognizer import Recognizer
    from vision.synth.compose import compose_table

    recognizer = Recognizer.load(model_dir, threads=threads)
    results = []
    for width, height in sizes:
        times, cpu, cards = [], [], []
        for i in range(photos + 1):
            image, truth = compose_table(seed + i, size=(width, height), faces="print")
            started, started_cpu = time.perf_counter(), time.process_time()
            line = describe_image(recognizer, image, seats=len(truth["seats"]))
            elapsed, elapsed_cpu = time.perf_counter() - started, time.process_time() - started_cpu
            if i:  # the first is a warm-up
                times.append(elapsed)
                cpu.append(elapsed_cpu)
                cards.append(len(line["cards"]))
        results.append({"size": f"{width}x{height}", "photos": photos,
                        "ms_median": round(1000 * float(np.median(times)), 1),
                        "ms_max": round(1000 * float(np.max(times)), 1),
                        # CPU time of all threads: what the photo costs whatever else runs
                        "cpu_ms_median": round(1000 * float(np.median(cpu)), 1),
                        "cards_per_photo": round(float(np.mean(cards)), 1)})
    return {"model": str(model_dir), "threads": threads, "load_average": list(os.getloadavg()),
            "cpus": os.cpu_count(), "results": results}


def format_bench(report: dict) -> str:
    lines = [f"{'size':<10} {'photos':>6} {'ms median':>10} {'ms max':>8} {'CPU ms median':>14} {'cards':>6}"]
    for r in report["results"]:
        lines.append(f"{r['size']:<10} {r['photos']:>6} {r['ms_median']:>10} {r['ms_max']:>8} "
                     f"{r['cpu_ms_median']:>14} {r['cards_per_photo']:>6}")
    load = ", ".join(f"{v:.2f}" for v in report["load_average"])
    lines.append(f"{report['threads']} inference threads; load average {load} on {report['cpus']} CPUs")
    return "\n".join(lines)
