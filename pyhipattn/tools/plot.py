"""Plot a ``pyhipattn bench`` results JSON: grouped bars, ours against the peers.

    python -m pyhipattn.tools.plot bench-out/results.json [out.png]   (or: pyhipattn bench --plot RESULTS_JSON)

Top panel: TFLOP/s per prefill shape; bottom panel: TB/s per decode shape (the JSON's ``unit``
per row decides).  An implementation that is n/a on a shape has no bar there.  Needs matplotlib
(``pip install matplotlib``); the bench itself runs without it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .bench_rows import primary, shape_label


#: One color per implementation, the same in every plot.
COLORS = {"ours": "#d62728", "flash": "#1f77b4", "cudnn": "#2ca02c", "efficient": "#9467bd", "flash_attn": "#ff7f0e"}


def _implementations(report: dict) -> list[str]:
    return ["ours"] + [p for p in report.get("peers", []) if p != "ours"]


def plot_results(report: dict, png: Path) -> Path:
    """Write the grouped-bar PNG for ``report`` (the bench JSON as a dict) to ``png``.
    Raises ImportError, with the command that fixes it, when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError as e:
        raise ImportError(f"plotting needs matplotlib ({e}): pip install matplotlib") from e
    names = _implementations(report)
    panels = [(u, [r for r in report["rows"] if r.get("unit") == u]) for u in ("TFLOP/s", "TB/s")]
    panels = [(u, rows) for u, rows in panels if rows]
    if not panels:
        raise ValueError("the report has no rows to plot")
    widest = max(len(rows) for _, rows in panels)
    inches = min(24.0, max(8.0, 0.12 * widest * len(names) + 2))
    fig, axes = plt.subplots(len(panels), 1, figsize=(inches, 4.5 * len(panels)), squeeze=False)
    width = 0.8 / len(names)
    for ax, (unit, rows) in zip(axes[:, 0], panels):
        for j, name in enumerate(names):
            xs, ys = [], []
            for i, row in enumerate(rows):
                y = primary(row, name)
                if y is not None:
                    xs.append(i - 0.4 + (j + 0.5) * width)
                    ys.append(y)
            ax.bar(xs, ys, width, color=COLORS.get(name, f"C{j}"))
        top = max([primary(r, n) or 0.0 for r in rows for n in names] + [1e-12])
        for i, row in enumerate(rows):   # ours / best peer above each group; failed checks in red
            note = f"{row['ratio_best']:.2f}x" if row.get("ratio_best") else ""
            bad = str(row.get("check", "")).startswith(("BAD", "failed"))
            if note or bad:
                ax.text(i, top * 1.02, ("BAD\n" if bad else "") + note, ha="center", va="bottom", fontsize=6,
                        color="red" if bad else "black")
        ax.set_ylim(0, top * 1.25)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([shape_label(r["shape"], r["causal"]) for r in rows], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
        handles = [Patch(color=COLORS.get(n, f"C{j}"), label=n) for j, n in enumerate(names)]
        ax.legend(handles=handles, fontsize=8, ncol=len(names), loc="upper left")
    dev = report.get("device", {}).get("name", "?")
    axes[0, 0].set_title(f"pyhipattn mha_fwd vs peers, {dev}, {report.get('dtype', '?')} "
                         "(above each group: ours / best peer)")
    fig.tight_layout()
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=120)
    plt.close(fig)
    return png


def plot_file(json_path: Path, png: Path | None = None) -> Path:
    """Plot a results JSON; the PNG goes beside it (same name, .png) unless ``png`` is given."""
    report = json.loads(Path(json_path).read_text())
    return plot_results(report, png or Path(json_path).with_suffix(".png"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not 1 <= len(argv) <= 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        print(f"wrote {plot_file(Path(argv[0]), Path(argv[1]) if len(argv) > 1 else None)}")
    except ImportError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
