#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Draws decoupled-sampling sweep CSVs (decoupled_bench --csv, passlab-cli render --sweep) as SVG
line charts like the paper's Figure 10: shading rate against samples per pixel for each blur,
savings against cache size (quads and single samples, the unlimited cache dotted), the global
against the per-tile cache over blur area, and (for scenes that move) shading rate by the motion's
direction on screen.

    scripts/sweep_charts.py docs/data/ds_defocus_sweep.csv docs/decoupled/
"""
import csv
import math
import os
import sys

W, H, L, R, T, B = 420, 260, 56, 110, 30, 40
COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#b07aa1"]


def chart(title, xlabel, ylabel, series, xlog=False, hlines=(), ticks=None, ymax=None):
    """series: [(name, [(x, y)], dashed)]; hlines: [(name, y)]; ticks: x values to label (default: the points');
    ymax: the top of the y axis (default: a little above the highest point)."""
    xs = [x for _, pts, _ in series for x, _ in pts]
    ys = [y for _, pts, _ in series for _, y in pts] + [y for _, y in hlines] + [0]
    fx = (lambda v: math.log2(v)) if xlog else (lambda v: v)
    x0, x1 = fx(min(xs)), fx(max(xs))
    y1 = ymax or max(ys) * 1.08 or 1
    px = lambda v: L + (fx(v) - x0) / ((x1 - x0) or 1) * (W - L - R)
    py = lambda v: H - B - v / y1 * (H - T - B)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W/2}" y="16" text-anchor="middle" font-size="13">{title}</text>',
           f'<line x1="{L}" y1="{H-B}" x2="{W-R}" y2="{H-B}" stroke="#333"/>',
           f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H-B}" stroke="#333"/>',
           f'<text x="{(L+W-R)/2}" y="{H-8}" text-anchor="middle">{xlabel}</text>',
           f'<text x="14" y="{(T+H-B)/2}" text-anchor="middle" transform="rotate(-90 14 {(T+H-B)/2})">{ylabel}</text>']
    for i in range(6):
        v = y1 * i / 5
        out.append(f'<line x1="{L-3}" y1="{py(v):.1f}" x2="{W-R}" y2="{py(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L-6}" y="{py(v)+4:.1f}" text-anchor="end">{v:.3g}</text>')
    for x in ticks if ticks is not None else sorted(set(xs)):
        label = f"{x / 1024:g}k" if x >= 1024 else f"{x:g}"
        out.append(f'<text x="{px(x):.1f}" y="{H-B+14}" text-anchor="middle">{label}</text>')
    for k, (name, y) in enumerate(hlines):
        out.append(f'<line x1="{L}" y1="{py(y):.1f}" x2="{W-R}" y2="{py(y):.1f}" stroke="#888" stroke-dasharray="2,3"/>')
        out.append(f'<text x="{L+4}" y="{py(y)-3:.1f}" fill="#666" font-size="10">{name}</text>')
    for k, (name, pts, dashed) in enumerate(series):
        c = COLOURS[k % len(COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(pts))
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{c}"/>')
        out.append(f'<text x="{W-R+6}" y="{T+14+16*k}" fill="{c}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    out_dir = sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.basename(sys.argv[1]).replace("_sweep.csv", "")
    f = float
    charts = {}
    spp = [r for r in rows if r["axis"] == "spp"]
    if spp:
        series = []
        for blur in sorted({f(r["blur"]) for r in spp}):
            series.append((f"blur {blur:g}", [(f(r["spp"]), f(r["shading_rate"])) for r in spp if f(r["blur"]) == blur], False))
        charts["rate_vs_spp"] = chart(f"{stem}: shading rate (4k global cache)", "visibility samples per pixel", "shader runs per pixel", series)
    cache = [r for r in rows if r["axis"] == "cache"]
    if cache:
        series, lines = [], []
        for block in ("quad", "sample"):
            pts = [(f(r["cache"]), f(r["savings"])) for r in cache if r["block"] == block and int(r["cache"]) > 0]
            series.append((f"{block} blocks", pts, False))
            for r in cache:
                if r["block"] == block and int(r["cache"]) == 0:
                    lines.append((f"{block}: unlimited", f(r["savings"])))
        lines.append(("supersampling", 1.0))
        charts["savings_vs_cache"] = chart(f"{stem}: savings vs cache size (27 spp)", "cache size (shading samples)", "savings vs supersampling",
                                           series, xlog=True, hlines=lines)
    def powers_of_4(values):  # ticks for a blur-area axis: 1, 4, 16, ... over the values' range
        return [4 ** k for k in range(12) if min(values) <= 4 ** k <= max(values)]

    scope = [r for r in rows if r["axis"] == "scope"]
    if scope:
        series = [(f"{s} cache", [(f(r["blur_area"]), f(r["shading_rate"])) for r in scope if r["scope"] == s], s == "tile") for s in ("global", "tile")]
        charts["scope_vs_blur"] = chart(f"{stem}: global vs per-tile cache (27 spp)", "blur area (px, log)", "shader runs per pixel", series,
                                        xlog=True, ticks=powers_of_4([f(r["blur_area"]) for r in scope]))
    blur = [r for r in rows if r["axis"] == "blur"]
    if blur:
        # As the paper's Figure 10: against the blur area, the pixels a shading sample reaches.
        series = [("shading rate", [(f(r["blur_area"]), f(r["shading_rate"])) for r in blur], False)]
        charts["rate_vs_blur"] = chart(f"{stem}: shading rate by blur area (27 spp)", "blur area (px, log)", "shader runs per pixel", series,
                                       xlog=True, ticks=powers_of_4([f(r["blur_area"]) for r in blur]))
    direction = [r for r in rows if r["axis"] == "direction"]
    if direction:
        # The paper: motion trails cross the space-filling traversal, so the cache's reuse depends on
        # how they lie against it.
        series = [(f"{s} cache", [(f(r["motion_angle"]), f(r["shading_rate"])) for r in direction if r["scope"] == s], s == "tile")
                  for s in ("global", "tile")]
        charts["rate_vs_direction"] = chart(f"{stem}: shading rate by motion direction (27 spp)", "motion turned on screen (degrees)",
                                            "shader runs per pixel", series)
    for name, svg in charts.items():
        path = os.path.join(out_dir, f"{stem}_{name}.svg")
        with open(path + ".tmp", "w") as out:
            out.write(svg)
        os.replace(path + ".tmp", path)
        print("wrote", path)


if __name__ == "__main__":
    main()
