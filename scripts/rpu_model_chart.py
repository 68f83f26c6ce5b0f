#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Draws the RPU machine model's sweeps (passlab-cli rpu render --sweep ... --stats json) as two SVG
line charts, model_issue.svg and model_trace.svg: the share of cycles the issue slot and the trace
unit are busy against chunks in flight, one line per scene (name=file.json), with the
sweep_charts.py drawing.

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
    for key, title, value in (("issue", "issue slot busy", lambda s: s["utilisation"]),
                              ("trace", "trace unit busy", lambda s: s["trace_unit"]["occupancy"])):
        series = [(name, [(s["chunks_in_flight"], value(s)) for s in j["sweep"]], False) for name, j in scenes]
        svg = chart(f"RPU machine model: {title}", "chunks in flight per core", "share of cycles", series, xlog=True, ymax=1)
        with open(os.path.join(out_dir, f"model_{key}.svg"), "w") as f:
            f.write(svg)

if __name__ == "__main__":
    main()
