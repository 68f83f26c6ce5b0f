#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Draws the RPU machine model's sweeps (passlab-cli rpu render --sweep ... --stats json) as SVG
line charts: utilisation of the issue slot and occupancy of the trace unit against chunks in
flight, one line per scene (name=file.json), with the sweep_charts.py drawing.

    scripts/rpu_model_chart.py docs/rpu/ bunny=docs/data/rpu_bunny_model.json reflections=...
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_charts import chart  # noqa: E402


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    scenes = [(a.split("=", 1)[0], json.load(open(a.split("=", 1)[1]))) for a in sys.argv[2:]]
    issue, trace = [], []
    for name, j in scenes:
        pts = [(s["chunks_in_flight"], s["utilisation"]) for s in j["sweep"]]
        issue.append((f"{name}: issue", pts, False))
        trace.append((f"{name}: trace unit", [(s["chunks_in_flight"], s["trace_unit"]["occupancy"]) for s in j["sweep"]], True))
    series = [x for pair in zip(issue, trace) for x in pair]
    svg = chart("RPU machine model: utilisation", "chunks in flight per core", "share of cycles busy", series, xlog=True)
    with open(os.path.join(out_dir, "model_utilisation.svg"), "w") as f:
        f.write(svg)


if __name__ == "__main__":
    main()
