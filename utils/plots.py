"""Figures written as PNG (matplotlib, Agg backend: no display needed)."""
from __future__ import annotations

from pathlib import Path


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def passk_curves(curves: dict[str, dict[int, float]], path: str | Path, title: str = "pass@k") -> None:
    """One line per label: k (log2 axis) -> pass@k."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for label, points in curves.items():
        ks = sorted(points)
        ax.plot(ks, [points[k] for k in ks], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def grouped_bars(groups: dict[str, dict[str, float]], path: str | Path, title: str, ylabel: str) -> None:
    """Bars per category (outer keys on the x axis), one colour per series (inner keys)."""
    plt = _plt()
    cats = list(groups)
    series = sorted({s for g in groups.values() for s in g})
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(5, 0.6 * len(cats) * max(1, len(series))), 3.5))
    for i, s in enumerate(series):
        ax.bar([c + i * width for c in range(len(cats))], [groups[c].get(s, 0.0) for c in cats], width, label=s)
    ax.set_xticks([c + width * (len(series) - 1) / 2 for c in range(len(cats))])
    ax.set_xticklabels(cats, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
