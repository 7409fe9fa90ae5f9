"""analyze.py throughput on one core: segmentation of 25,000-token traces, span labelling by the
embedded n-gram classifier and the cue baseline, and the motif/depth statistics per trace.

    python bench/analyze.py [--traces 200] [--hf runs/tiny] [--end-to-end 500]

Traces are ~100 kB (25,000 tokens at 4 characters per token) of the shipped hand-written spans
(data/spans/) laid out three ways: paragraphs with discourse markers, one-line-per-sentence
scratch work, and marker-free walls of text that take the long-fragment sentence split.
Target (analyze.py issue): segmentation >= 200 traces/s per core. Times are CPU seconds of this
process with torch limited to one thread, so the rates are per core.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from utils.labels import cue_label  # noqa: E402
from utils.motifs import KS, category_counts, chain_depth, exploit_runs, kgram_counts  # noqa: E402
from utils.segment import segment  # noqa: E402
from utils.span_classifier import SHIPPED_SPANS, load_spans, train_embedded  # noqa: E402

TRACE_CHARS = 100_000


def traces(n: int, seed: int = 0) -> list[str]:
    texts = [r["text"] for r in load_spans(SHIPPED_SPANS / "train.jsonl")]
    rng = random.Random(seed)
    out = []
    for i in range(n):
        layout, parts, size = i % 3, [], 0
        while size < TRACE_CHARS:
            t = rng.choice(texts)
            if layout == 0:  # paragraphs, markers at line starts
                sep = rng.choice(["\n\n", "\n", " "])
            elif layout == 1:  # one sentence per line
                t, sep = t.replace(". ", ".\n"), "\n"
            else:  # no paragraph breaks at all: every fragment goes through the sentence split
                sep = " "
            parts.append(t + sep)
            size += len(t) + len(sep)
        out.append("<reasoning>" + "".join(parts) + "</reasoning>\n<answer>42</answer>")
    return out


def cpu_rate(fn, items) -> tuple[float, float]:
    t0 = time.process_time()
    result = fn(items)
    dt = time.process_time() - t0
    return len(items) / dt, dt, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=200)
    ap.add_argument("--hf", default="", help="also time an (untrained) HF sequence classifier from this directory")
    ap.add_argument("--end-to-end", type=int, default=0, help="also time analyze.py (wall clock) on two checkpoints "
                                                               "of this many 25,000-token traces each")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    data = traces(args.traces)
    print("| stage | rate per core | details |")
    print("|---|---:|---|")
    rate, dt, spans = cpu_rate(lambda ts: [segment(t) for t in ts], data)
    n_spans = sum(map(len, spans))
    print(f"| segmentation | {rate:.1f} traces/s | {len(data)} traces of ~{TRACE_CHARS // 1000} kB "
          f"= ~{TRACE_CHARS // 4:,} tokens, {n_spans / len(data):.0f} spans/trace, {dt:.2f} CPU s; target >= 200 |")

    pairs = [(s, trace[i - 1] if i else "") for trace in spans for i, s in enumerate(trace)][:20000]
    t0 = time.process_time()
    clf = train_embedded()
    train_s = time.process_time() - t0
    rate, dt, _ = cpu_rate(clf.predict, pairs)
    print(f"| embedded n-gram classifier | {rate:.0f} spans/s | {len(pairs)} spans, {dt:.2f} CPU s; training on the "
          f"shipped spans: {train_s:.2f} CPU s |")
    rate, dt, labels = cpu_rate(lambda ps: [cue_label(s) for s, _ in ps], pairs)
    print(f"| cue baseline | {rate:.0f} spans/s | {len(pairs)} spans, {dt:.2f} CPU s |")

    seqs = []
    k = 0
    for trace in spans:
        seqs.append(labels[k:k + len(trace)] if k + len(trace) <= len(labels) else [cue_label(s) for s in trace])
        k += len(trace)

    def stats(seqs):
        for s in seqs:
            for kk in KS:
                kgram_counts(s, kk)
            chain_depth(s), exploit_runs(s), category_counts(s)

    rate, dt, _ = cpu_rate(stats, seqs)
    print(f"| motifs k=2..15 | {rate:.1f} traces/s | + depth, runs, categories; {dt:.2f} CPU s |")

    if args.hf:
        from utils.span_classifier import HFSpanClassifier, HFTrainConfig

        hf = HFSpanClassifier.load(args.hf, HFTrainConfig(device="cpu", batch_size=32), num_labels_check=False)
        sub = [s for s, _ in pairs[:512]]
        rate, dt, _ = cpu_rate(hf.predict, sub)
        print(f"| hf classifier | {rate:.0f} spans/s | {args.hf}, {len(sub)} spans, {dt:.2f} CPU s |")

    if args.end_to_end:
        end_to_end(args.end_to_end)


def end_to_end(n: int) -> None:
    import json
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for c, seed in (("ckpt_a", 1), ("ckpt_b", 2)):
            path = Path(tmp) / c / "samples.jsonl"
            path.parent.mkdir()
            rng = random.Random(seed)
            with open(path, "w") as f:
                for i, text in enumerate(traces(n, seed)):
                    f.write(json.dumps({"benchmark": "bench", "problem_id": f"p{i // 4}", "sample": i % 4,
                                        "correct": rng.random() < 0.4, "response": text}) + "\n")
            inputs.append(str(path))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "analyze.py", f"inputs=[{','.join(inputs)}]", f"out_root={tmp}", "name=bench",
                        "passk=[1,4]"], cwd=root, check=True, capture_output=True)
        dt = time.perf_counter() - t0
        print(f"| analyze.py end to end | {2 * n / dt:.1f} traces/s (wall) | 2 checkpoints x {n} traces of ~25,000 "
              f"tokens, default config, {dt:.1f} s including the classifier's training and all tables and plots |")


if __name__ == "__main__":
    main()
