"""The charts of docs/performance.md: simple SVG bar charts drawn from the
committed benchmark results, with no dependency beyond the standard library.

    python docs/plots.py              # writes docs/img/*.svg
    python docs/plots.py --out DIR    # writes them elsewhere (tests/test_docs.py
                                      # compares that with docs/img/)

The output is deterministic: the same results give the same bytes. Every
results file the charts read is named in RESULTS below, and nowhere else: when a
results folder moves, change it here (and the file names in performance.md).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from xml.sax.saxutils import escape

# -- the results files, relative to the repository root -------------------------------
RESULTS = {
    "forward": "bench/results/h100-tables-2026-11-25/maxsim_forward.json",
    "train": "bench/results/h200-train-2026-11-28/maxsim_train.json",
    "specs": [
        "bench/results/h100-tables-2026-11-25/specs_part1.json",
        "bench/results/h100-tables-2026-11-25/specs_part2.json",
    ],
    "host": "bench/results/h200-host-2026-11-26-kept-front-end/host.json",
    "chamfer": "bench/results/h200-chamfer-2026-11-26/chamfer.json",
    "splade": "bench/results/h100-bundled-2026-11-25/splade.json",
}

ROOT = Path(__file__).resolve().parent.parent
IMG = Path(__file__).resolve().parent / "img"

# bar colours by kind of variant
COLOURS = {"hsr": "#d95f02", "floor": "#9a9a9a", "peer": "#4c78a8", "torch": "#9ecae9"}

WIDTH = 720
LABEL_W = 230      # the variant labels, left of the bars
BAR_W = 380        # the longest bar
BAR_H = 16
GAP = 5
PANEL_HEAD = 24
FONT = 'font-family="sans-serif"'
F12 = FONT + ' font-size="12"'


def load(key) -> dict | list:
    paths = RESULTS[key]
    if isinstance(paths, list):
        return [json.loads((ROOT / p).read_text()) for p in paths]
    return json.loads((ROOT / paths).read_text())


def fmt(value: float, unit: str) -> str:
    """Three significant digits, then the unit."""
    if value >= 100:
        text = f"{value:.0f}"
    elif value >= 10:
        text = f"{value:.1f}"
    elif value >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3f}"
    return f"{text}x" if unit == "x" else f"{text} {unit}"


def chart(title: str, subtitle: str, panels: list, unit: str, log: bool = False, label_w: int = LABEL_W) -> str:
    """Horizontal bars, one panel per group: panels = [(panel title, [(label, value,
    kind)])], each panel scaled to its own largest value (log: one decade scale
    shared by every panel)."""
    values = [v for _t, bars in panels for _l, v, _k in bars if v and v > 0]
    if log:
        lo = 10 ** math.floor(math.log10(min(values)))
        hi = 10 ** math.ceil(math.log10(max(values)))
    height = 52 + sum(PANEL_HEAD + len(bars) * (BAR_H + GAP) + 8 for _t, bars in panels) + (18 if log else 0)
    width = max(WIDTH, label_w + BAR_W + 110)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" {FONT} font-size="15" font-weight="bold">{escape(title)}</text>',
           f'<text x="10" y="38" {F12} fill="#444">{escape(subtitle)}</text>']
    y = 52
    x0 = label_w
    for panel_title, bars in panels:
        out.append(f'<text x="10" y="{y + 16}" {F12} font-weight="bold">{escape(panel_title)}</text>')
        y += PANEL_HEAD
        top = max((v for _l, v, _k in bars if v), default=1.0)
        if log:
            for e in range(round(math.log10(lo)), round(math.log10(hi)) + 1):
                gx = x0 + BAR_W * (e - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
                out.append(f'<line x1="{gx:.1f}" y1="{y - 2}" x2="{gx:.1f}" '
                           f'y2="{y + len(bars) * (BAR_H + GAP) - GAP + 2}" stroke="#ddd"/>')
        for label, value, kind in bars:
            out.append(f'<text x="{x0 - 8}" y="{y + BAR_H - 4}" {F12} text-anchor="end">{escape(label)}</text>')
            if value is None:
                out.append(f'<text x="{x0 + 4}" y="{y + BAR_H - 4}" {F12} fill="#888">not run</text>')
            else:
                if log:
                    w = BAR_W * math.log10(value / lo) / math.log10(hi / lo)
                else:
                    w = BAR_W * value / top
                w = max(w, 1.0)
                out.append(f'<rect x="{x0}" y="{y}" width="{w:.1f}" height="{BAR_H}" fill="{COLOURS[kind]}"/>')
                out.append(f'<text x="{x0 + w + 5:.1f}" y="{y + BAR_H - 4}" {F12}>{escape(fmt(value, unit))}</text>')
            y += BAR_H + GAP
        y += 8
    if log:
        labels = []
        for e in range(round(math.log10(lo)), round(math.log10(hi)) + 1):
            gx = x0 + BAR_W * (e - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
            labels.append(f'<text x="{gx:.1f}" y="{y + 6}" {FONT} font-size="10" fill="#666" '
                          f'text-anchor="middle">{10.0 ** e:g}{"x" if unit == "x" else " " + unit}</text>')
        out.extend(labels)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def versions(d: dict) -> str:
    v = d.get("versions", d)
    return f"{d['device']}, torch {v['torch']}, Triton {v['triton']}"


# -- one function per chart -----------------------------------------------------------

def forward() -> str:
    d = load("forward")
    variants = [("hsr", "hsr", "hsr"), ("flash_maxsim", "flash-maxsim", "peer"),
                ("late_interaction_kernels", "late-interaction-kernels", "peer"),
                ("torch_compile", "torch.compile", "torch"), ("eager", "eager fp16", "torch")]
    panels = []
    for s in d["shapes"]:
        t = s["times_ms"]
        bars = [(f"floor ({s['bound']})", s["limit_ms"] * 1000, "floor")]
        bars += [(label, t[k] * 1000 if k in t else None, kind) for k, label, kind in variants]
        panels.append((f"{s['name']}: Lq x Ld = {s['Lq']} x {s['Ld']}", bars))
    return chart(f"MaxSim forward, one query against {d['B']} documents, d = {d['d']}, {d['dtype']}",
                 f"{versions(d)}; us per call, do_bench median; shorter is faster", panels, "us")


def train() -> str:
    d = load("train")
    variants = [("hsr_atomic", 'hsr backward="atomic"', "hsr"),
                ("hsr_deterministic", 'hsr backward="deterministic"', "hsr"),
                ("flash_maxsim", "flash-maxsim", "peer"),
                ("late_interaction_kernels", "late-interaction-kernels", "peer"),
                ("naive", "eager (autograd)", "torch")]
    panels = []
    for s in d["shapes"]:
        if not s["ms"]:
            continue
        bars = [(label, s["ms"].get(k), kind) for k, label, kind in variants]
        panels.append((f"in-batch B = {s['B']}, Lq x Ld = {s['Lq']} x {s['Ld']}", bars))
    return chart(f"MaxSim training step (forward, cross-entropy, backward), {d['dtype']}, d = {d['d']}",
                 f"{versions(d)}; ms per step; shorter is faster", panels, "ms")


def specs() -> str:
    parts = load("specs")
    bars = []
    for d in parts:
        for r in d["rows"]:
            if r.get("status") != "ok" or not r.get("eager_ms"):
                continue
            bars.append((f"{r['name']} {r['size']} {r['dtype']}", r["eager_ms"] / r["hsr_ms"], "hsr"))
    return chart("Specs that no bundled op is: eager PyTorch time / hsr time",
                 f"{versions(parts[0])}; above 1x, hsr is faster (log scale)",
                 [("hsr.compile(spec) against the same formula in eager PyTorch", bars)], "x", log=True,
                 label_w=330)


def host() -> str:
    d = load("host")
    variants = [("hsr", "hsr", "hsr"), ("flash_maxsim", "flash-maxsim", "peer"),
                ("lik", "late-interaction-kernels", "peer"), ("eager", "eager", "torch"),
                ("flash_maxsim_padded", "flash-maxsim, padded with lengths", "peer"),
                ("lik_masked", "late-interaction-kernels, padded with a mask", "peer")]
    names = {"tiny": "tiny: one query of 32 tokens, 4 documents of 32",
             "textual": "textual: one query of 32 tokens, 1000 documents of 300",
             "rerank100": "rerank: one query, 100 documents of 40 to 300 tokens (masked)",
             "rerank1000": "rerank: one query, 1000 documents of 40 to 300 tokens (masked)"}
    panels = []
    for r in d["rows"]:
        if r["metric"] != "wall_us" or r["name"] not in names:
            continue
        panels.append((names[r["name"]], [(label, r.get(k), kind) for k, label, kind in variants
                                          if k in r]))  # the padded peers: the rerank rows only
    return chart("Small MaxSim calls, wall time with the host included",
                 f"{d['device']}, torch {d['torch']}, Triton {d['triton']}; fp16, d = 128; us per call, "
                 f"back to back; shorter is faster", panels, "us")


def chamfer() -> str:
    d = load("chamfer")
    panels = []
    for s in d["shapes"]:
        shape = f"{s['batch']} x {s['N']} points"
        f, b = s["forward"], s["fwd_bwd"]
        panels.append((f"{shape}: forward", [
            ("hsr", f["hsr"].get("ms"), "hsr"),
            ("flash_chamfer (fp16 coordinates)", f["flash_chamfer"].get("ms"), "peer"),
            ("torch.cdist + min", f["cdist"].get("ms"), "torch")]))
        panels.append((f"{shape}: forward + backward", [
            ('hsr backward="auto"', b["hsr_auto"].get("ms"), "hsr"),
            ("flash_chamfer_train", b["flash_chamfer_train"].get("ms"), "peer"),
            ("torch.cdist + min", b["cdist"].get("ms"), "torch")]))
    return chart(f"Chamfer distance, {d['dtype']} clouds in {d['d']}-d, both directions",
                 f"{versions(d)}; ms per call (log scale); shorter is faster", panels, "ms", log=True)


def splade() -> str:
    d = load("splade")
    f, b, floors = d["shape"]["forward"], d["shape"]["fwd_bwd"], d["shape"]["floors"]
    panels = [
        ("forward", [("floor (compute)", floors["forward"]["limit_ms"], "floor"),
                     ("hsr.ops.splade_max", f["hsr"]["ms"], "hsr"),
                     ("cuBLAS GEMM alone (aligned rows)", f["gemm_aligned"]["ms"], "torch"),
                     ("eager head", f["eager"]["ms"], "torch")]),
        ("forward + backward", [('hsr backward="auto"', b["hsr_auto"]["ms"], "hsr"),
                                ('hsr backward="atomic"', b["hsr_atomic"]["ms"], "hsr"),
                                ("eager head", b["eager"]["ms"], "torch")]),
    ]
    return chart(f"Splade head, B = {d['B']}, L = {d['L']}, H = {d['H']}, V = {d['V']}, {d['dtype']}",
                 f"{versions(d)}; ms per call; shorter is faster", panels, "ms")


CHARTS = {"maxsim_forward": forward, "maxsim_train": train, "specs": specs, "host": host,
          "chamfer": chamfer, "splade": splade}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMG, help="where to write the SVGs (default docs/img)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, make in CHARTS.items():
        (args.out / f"{name}.svg").write_text(make())
        print(f"wrote {args.out / (name + '.svg')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
