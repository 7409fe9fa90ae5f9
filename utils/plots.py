"""Figures written as PNG (matplotlib, Agg backend: no display needed)."""
from __future__ import annotations

from pathlib import Path


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def passk_curves(curves: dict[str, dict[int, float]], path: str | Path, title: str = "pass@k",
                 bands: dict[str, dict[int, tuple[float, float]]] | None = None):
    """One line per label: k (log2 axis, integer ticks) -> pass@k, with its 95% interval as a band
    (and error bars) at the k values that have one; the legend sits below the axes. Returns the
    (closed) figure, for tests."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    all_ks = sorted({k for points in curves.values() for k in points})
    for label, points in curves.items():
        ks = sorted(points)
        (line,) = ax.plot(ks, [points[k] for k in ks], marker="o", ms=3, label=label)
        ci = (bands or {}).get(label) or {}
        kb = sorted(k for k in ci if k in points)
        if kb:
            lo, hi = [ci[k][0] for k in kb], [ci[k][1] for k in kb]
            ax.fill_between(kb, lo, hi, color=line.get_color(), alpha=0.18, lw=0)
            ax.errorbar(kb, [points[k] for k in kb], yerr=[[points[k] - a for k, a in zip(kb, lo)],
                                                           [b - points[k] for k, b in zip(kb, hi)]],
                        fmt="none", ecolor=line.get_color(), capsize=2, lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(all_ks)
    ax.set_xticklabels([str(k) for k in all_ks], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("k (samples per problem)")
    ax.set_ylabel("pass@k")
    ax.set_ylim(0, 1)
    ax.set_title(title + (" (bands: bootstrap 95% CI)" if bands else ""), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=min(3, max(1, len(curves))),
              frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return fig


def step_curves(series: dict[str, list[tuple[int, float]]], path: str | Path, title: str, ylabel: str,
                xlabel: str = "step") -> list[str]:
    """One line per label through its (step, value) points, values in [0, 1]. Returns the labels drawn."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for label, points in series.items():
        ax.plot(*zip(*points), marker=".", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [line.get_label() for line in ax.get_lines()]


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
    if all(float(v).is_integer() for g in groups.values() for v in g.values()):  # counts: integer ticks
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # beside, not over, the bars
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


# ------------------------------------------------------------------ reasoning primitives (analyze.py)

# One fixed colour per primitive so strips and bars read the same across runs (exploitation moves in
# blues/greens, exploration in oranges/reds, `other` grey).
LABEL_COLORS = {"plan": "#9467bd", "setup": "#17becf", "enumerate": "#bcbd22", "hypothesize": "#ff7f0e",
                "compute": "#1f77b4", "check": "#2ca02c", "backtrack": "#d62728", "summarize": "#8c564b",
                "other": "#c7c7c7"}


def primitive_bars(values: dict[str, dict[str, float]], path: str | Path, title: str, ylabel: str) -> None:
    """values[series][label]: bars per primitive (x axis, in LABEL_COLORS order), one bar per series
    (checkpoint), series kept in the given order."""
    plt = _plt()
    labels = list(LABEL_COLORS)
    series = list(values)
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(labels) * max(1, len(series))), 3.8))
    cmap = plt.get_cmap("viridis")
    for i, s in enumerate(series):
        ax.bar([c + i * width for c in range(len(labels))], [values[s].get(label, 0.0) for label in labels], width,
               label=s, color=cmap(i / max(1, len(series) - 1)) if len(series) > 1 else "#1f77b4")
    ax.set_xticks([c + width * (len(series) - 1) / 2 for c in range(len(labels))])
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def depth_histograms(depths: dict[str, list[int]], path: str | Path, title: str) -> None:
    """One histogram row per series (checkpoint) of chain depths, on a shared integer x axis."""
    from matplotlib.ticker import MaxNLocator

    plt = _plt()
    names = list(depths)
    top = max([max(d) for d in depths.values() if d] + [1])
    fig, axes = plt.subplots(len(names), 1, figsize=(6, 1.3 + 1.1 * len(names)), sharex=True, squeeze=False)
    bins = [b - 0.5 for b in range(top + 2)]
    for ax, name in zip(axes[:, 0], names):
        d = depths[name]
        ax.hist(d, bins=bins, color="#1f77b4", alpha=0.8)
        mean = sum(d) / len(d) if d else 0.0
        ax.axvline(mean, color="#d62728", lw=1)
        ax.set_ylabel("traces", fontsize=7)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{name}  (n={len(d)}, mean={mean:.2f})", fontsize=8, loc="left")
    axes[-1, 0].set_xlabel("chain depth (longest run of setup/compute/check)")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def primitive_strips(rows: list[tuple[str, list[str]]], path: str | Path, title: str) -> None:
    """One horizontal strip per trace: a cell per span, coloured by its label (as the paper's
    figures 14-15); rows are (caption, labels)."""
    plt = _plt()
    from matplotlib.patches import Patch, Rectangle

    longest = max([len(labels) for _, labels in rows] + [1])
    fig, ax = plt.subplots(figsize=(min(16, 3 + 0.12 * longest), 0.9 + 0.38 * len(rows)))
    for r, (_, labels) in enumerate(rows):
        for i, label in enumerate(labels):
            ax.add_patch(Rectangle((i, -r - 0.4), 1, 0.8, color=LABEL_COLORS.get(label, "#000000"), lw=0))
    ax.set_xlim(0, longest)
    ax.set_ylim(-len(rows) + 0.4, 0.6)
    ax.set_yticks([-r for r in range(len(rows))])
    ax.set_yticklabels([caption for caption, _ in rows], fontsize=7)
    ax.set_xlabel("span index")
    ax.set_title(title, fontsize=9)
    ax.legend(handles=[Patch(color=c, label=n) for n, c in LABEL_COLORS.items()], fontsize=6, ncol=9,
              loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(rows) < 4 else -0.12), frameon=False)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    fig.savefig(path, dpi=120, bbox_inches="tight")  # long captions: let the canvas grow instead of squeezing
    plt.close(fig)


def hbars(values: dict[str, float], path: str | Path, title: str, xlabel: str) -> None:
    """Horizontal bars, one per key in the given order (e.g. motif frequency changes), signed values
    coloured red (negative) / green (positive)."""
    plt = _plt()
    keys = list(values)
    fig, ax = plt.subplots(figsize=(7, 1 + 0.28 * max(1, len(keys))))
    ax.barh(range(len(keys)), [values[k] for k in keys],
            color=["#2ca02c" if values[k] >= 0 else "#d62728" for k in keys])
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(keys, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.6)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ------------------------------------------------------------------ training curves (train.py)

# (panel title, metric keys or "prefix/" for every key under it); a panel is drawn when its keys exist
CURVE_PANELS = [
    ("reward and accuracy", ["reward_mean", "accuracy"]),
    ("response length (tokens)", ["response_len", "response_len_max"]),
    ("KL and clipping", ["kl", "clip_frac_low", "clip_frac_high", "clipped_ratio"]),
    ("difficulty per env (adaptive: top of the window)", ["difficulty/"]),
    ("accuracy per env", ["accuracy/"]),
    ("entropy (mean per response token)", ["entropy"]),  # RL that sharpens the policy lowers it
    ("novelty bonus", ["novelty/bonus_abs_mean", "novelty/frac_rollouts_with_bonus"]),
    ("SFT loss", ["loss"]),
    ("gradient norm", ["grad_norm"]),
    ("learning rate", ["lr"]),
]


MAX_LEGEND = 12  # a panel with more lines (one per env) goes without a legend


def training_curves(rows: list[dict], path: str | Path, title: str = "training"):
    """metrics.jsonl rows -> one small panel per quantity present (reward, accuracy, length, KL and
    clip fractions, per-env difficulty with integer ticks, ...), step on the x axis. Returns the
    (closed) figure, for tests; None when no quantity is present."""
    from matplotlib.ticker import MaxNLocator

    plt = _plt()
    keys = {k for r in rows for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    panels = []
    for name, wanted in CURVE_PANELS:
        found = sorted(k for k in keys for w in wanted if (k.startswith(w) if w.endswith("/") else k == w))
        if found and not (name == "SFT loss" and "reward_mean" in keys):  # the RL policy loss is not a curve to read
            panels.append((name, found, any(w.endswith("/") for w in wanted)))
    if not panels:
        return
    cols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 2.6 * nrows), squeeze=False)
    for ax, (name, found, per_env) in zip(axes.flat, panels):
        for k in found:
            pts = [(r["step"], r[k]) for r in rows if isinstance(r.get(k), (int, float)) and "step" in r]
            if pts:
                ax.plot(*zip(*pts), label=k.split("/", 1)[1] if "/" in k else k, marker="." if len(pts) < 30 else None)
        ax.set_title(name, fontsize=9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if name.startswith("difficulty"):
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        if name == "learning rate":
            ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        if len(found) > MAX_LEGEND:  # 64 envs: a legend taller than the panel breaks the layout
            ax.set_title(f"{name} ({len(found)} envs)", fontsize=9)
        elif len(found) > 1 or per_env:  # beside the axes, never over the lines or the tick labels
            ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("step", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    tmp = Path(path).with_name(f".{Path(path).name}.tmp.png")
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(path)  # a reader never sees half a PNG
    return fig


def runs_curves(series: dict[str, list[dict]], keys: list[str], path: str | Path, title: str) -> list[str]:
    """Several runs' metrics.jsonl rows side by side: a panel per key that some run logs, a line per
    run, step on the x axis (analyze.py compare-runs). Returns the keys drawn."""
    plt = _plt()
    drawn = [k for k in keys if any(isinstance(r.get(k), (int, float)) for rows in series.values() for r in rows)]
    cols = 2 if len(drawn) > 1 else 1
    nrows = max(1, (len(drawn) + cols - 1) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(5.0 * cols, 2.6 * nrows), squeeze=False)
    for ax, key in zip(axes.flat, drawn):
        for run, rows in series.items():
            pts = [(r["step"], r[key]) for r in rows if isinstance(r.get(key), (int, float)) and "step" in r]
            if pts:
                ax.plot(*zip(*pts), label=run, marker="." if len(pts) < 30 else None)
        ax.set_title(key, fontsize=9)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(drawn):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return drawn
