"""Local embedder speed: texts/s on ~90-token texts in batches of 32, and one short text's latency.

    .venv/bin/python -m bench.perf.embed_throughput [--texts 320] [--batch 32] [--threads N] [--rebuild] [--check]

Also prints the import time of engram.adapters.embeddings.local, the session load time from the cached
model, and with --rebuild the cold build (ONNX graph + calibration + int8 quantization) into a
fresh temp cache. --check compares against the float numpy reference (slow: a few texts/s).
Figures vary with what else runs on the machine: it prints the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

SENTENCES = [
    "I moved to Lisbon in 2021 and now work remotely as a data engineer for a Dutch bank.",
    "My son Leo is allergic to shellfish, so recipes with shrimp or crab are out.",
    "We agreed to ship the billing migration after the holiday freeze.",
    "Ana owns the rollback plan and Luis will update the runbook before Friday.",
    "The deployment failed because the IAM role could not read the database secret.",
    "She prefers short answers with bullet points and metric units.",
    "Last summer we hiked the Dolomites for ten days and it rained on eight of them.",
    "The dentist appointment moved from Tuesday morning to Thursday at half past two.",
    "Our budget for the kitchen renovation is about twenty thousand euros, including appliances.",
    "He is learning Japanese and practises with a tutor every Monday evening.",
    "The customer reported that exports time out when the report has more than ten thousand rows.",
    "Remind me to call the insurance company about the cracked windscreen.",
    "My favourite band is Radiohead and I have seen them live three times.",
    "The quarterly revenue grew twelve percent, driven mostly by the cloud services division.",
    "I stopped drinking coffee in March because it was wrecking my sleep.",
    "The cat, Miso, needs her thyroid medication twice a day with food.",
]
SHORT = "what's my daughter's birthday?"


def make_texts(n: int, tokenizer: object, target_tokens: int = 90, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        parts: list[str] = []
        while len(tokenizer.encode(" ".join(parts)).ids) < target_tokens:  # type: ignore[attr-defined]
            parts.append(rng.choice(SENTENCES))
        texts.append(" ".join(parts))
    return texts


def import_time() -> float:
    code = (
        "import time; t = time.perf_counter(); import engram.adapters.embeddings.local; print(time.perf_counter() - t)"
    )
    runs = [float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(5)]
    return min(runs)


def one_text_sessions(embedder: Any, tokenizer: Any, runs: int = 200) -> None:
    """One short text on the session a query gets (one thread, no spinning) and on the batch session
    (a thread per core, onnxruntime's spinning default), alternating run by run, wall and CPU time."""
    from engram.adapters.embeddings.minilm_reference import pad_batch

    batch = pad_batch([tokenizer.encode(SHORT).ids])
    inputs = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
    sessions = {
        "query session (1 thread, no spin)": embedder._load(one_text=True)[0],
        "batch session": embedder._load()[0],
    }
    wall: dict[str, list[float]] = {name: [] for name in sessions}
    cpu: dict[str, list[float]] = {name: [] for name in sessions}
    for _ in range(runs):
        for name, session in sessions.items():
            t, c = time.perf_counter(), time.process_time()
            session.run(["pooled"], inputs)
            wall[name].append((time.perf_counter() - t) * 1000)
            cpu[name].append((time.process_time() - c) * 1000)
    for name in sessions:
        ordered = sorted(wall[name])
        print(
            f"one short text on the {name}: p50 {ordered[runs // 2]:.2f} ms  p95 {ordered[runs * 95 // 100]:.2f} ms"
            f"  fastest {ordered[0]:.2f} ms  CPU p50 {statistics.median(cpu[name]):.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=320)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true", help="time a cold build into a fresh temp cache")
    parser.add_argument("--check", action="store_true", help="cosine to the float numpy reference")
    args = parser.parse_args()

    print(f"cpus: {os.cpu_count()}  import engram.adapters.embeddings.local: {import_time() * 1000:.1f} ms")
    from engram.adapters.embeddings import local

    if args.rebuild:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            where = local.ensure_model(Path(tmp))
            size = (where / local.MODEL_FILENAME).stat().st_size
            print(f"cold build: {time.perf_counter() - t:.1f} s  model file: {size / 1e6:.1f} MB")

    embedder = local.LocalEmbedder(batch_size=args.batch, threads=args.threads)
    t = time.perf_counter()
    embedder.embed(["warm up"])
    print(f"first embed (load cached model + tokenizer): {(time.perf_counter() - t) * 1000:.0f} ms")
    model_file = local.ensure_model() / local.MODEL_FILENAME
    print(f"model: {model_file} ({model_file.stat().st_size / 1e6:.1f} MB)")

    tokenizer = embedder._load()[1]
    texts = make_texts(args.texts, tokenizer)
    tokens = [len(tokenizer.encode(x).ids) for x in texts]
    best = 0.0
    for _ in range(args.repeat):
        t = time.perf_counter()
        embedder.embed(texts)
        best = max(best, len(texts) / (time.perf_counter() - t))
    print(
        f"throughput: {best:.0f} texts/s  ({len(texts)} texts, mean {statistics.mean(tokens):.0f} tokens, "
        f"batch {args.batch}, best of {args.repeat})"
    )

    latencies = []
    for _ in range(200):
        t = time.perf_counter()
        embedder.embed([SHORT])
        latencies.append(time.perf_counter() - t)
    latencies.sort()
    print(
        f"one short text ({len(tokenizer.encode(SHORT).ids)} tokens): "
        f"p50 {latencies[100] * 1000:.2f} ms  p95 {latencies[190] * 1000:.2f} ms"
    )

    one_text_sessions(embedder, tokenizer)

    if args.check:
        from engram.adapters.embeddings import minilm_reference as ref

        weights = ref.load_weights()
        sample = [*texts[:16], SHORT, ""]
        got = embedder.embed_array(sample)
        ids = [tokenizer.encode(x).ids for x in sample]
        want = np.stack([ref.encode(weights, ref.pad_batch([i]))[0] for i in ids])
        sims = (got * want).sum(axis=1)
        print(f"cosine to float reference: min {sims.min():.4f}  mean {sims.mean():.4f}")


if __name__ == "__main__":
    main()
