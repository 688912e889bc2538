"""`sourcecheck eval`: a command of the `sourcecheck` CLI that this package adds through the entry point group
"sourcecheck.commands" (pyproject.toml; sourcecheck/cli.py finds it), so the product never imports the evaluation.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from sourcecheck_eval.judge import PROMPT_EVIDENCE, READING

if TYPE_CHECKING:
    from sourcecheck.cli import Command


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> Command:
    """Add the `eval` parser to the CLI's subparsers; returns the function that runs it."""
    p = sub.add_parser("eval", help="measure verdict quality on benchmark JSONL files (uniform schema)")
    p.add_argument(
        "data",
        nargs="+",
        help="dev.jsonl files, or names of public sets (wice, tofueval, lfqa_verification, factcheck_gpt, summedits, "
        "faithbench, halueval_summarization): fetched from GitHub at pinned commits into --benchmarks when absent",
    )
    p.add_argument(
        "--benchmarks",
        help="folder of the fetched public sets (default tmp/benchmarks; python -m sourcecheck_eval.public fetch)",
    )
    p.add_argument("--limit", type=int, help="records per file, sampled reproducibly (default: all)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--out", default="eval-out", help="folder for results.json, results.md, reliability.png")
    p.add_argument("--cache", help="verdict cache folder (default OUT/cache)")
    p.add_argument("--critique", action="store_true", help="also generate critiques (slow; not scored)")
    p.add_argument("--decompose", action="store_true", help="split long sentences into atomic claims")
    p.add_argument(
        "--prompt-evidence",
        choices=PROMPT_EVIDENCE,
        default="shared",
        help="what each sentence's prompt shows: one block shared by the check's sentences (default, what users "
        "get), its own passages, only the source sentences aligned with it, or each passage on its own (the best "
        "kept)",
    )
    p.add_argument(
        "--reading",
        choices=READING,
        default="numbers",
        help="contradictions by reading (reading.py): swap numbers (default, what users get), numbers then names, "
        "or none",
    )
    p.add_argument(
        "--reread",
        nargs=2,
        type=float,
        metavar=("LOW", "HIGH"),
        help="read again every sentence whose first P(supported) lies in [LOW, HIGH), each evidence item on its own "
        "(default: what users get, the sentences graded uncertain once a second read is calibrated)",
    )
    p.add_argument(
        "--rescore",
        metavar="FINGERPRINT",
        help="score the verdicts cached under an earlier "
        "run's fingerprint (see its results.json) without running the model",
    )
    return evaluate


def evaluate(args: argparse.Namespace, settings: dict[str, Any]) -> None:
    from pathlib import Path

    from sourcecheck_eval.run import evaluate as run

    report = run(
        benchmark_files(args.data, args.benchmarks),
        settings,
        limit=args.limit,
        seed=args.seed,
        out=args.out,
        cache_dir=args.cache,
        critique=args.critique,
        decompose=args.decompose,
        rescore=args.rescore,
        prompt_evidence=args.prompt_evidence,
        reading=args.reading,
        reread=tuple(args.reread) if args.reread else None,
        fit=True,
    )
    print((Path(args.out) / "results.md").read_text(), end="")
    print(
        f"Written: {Path(args.out) / 'results.json'}, results.md, predictions.jsonl, reliability.png"
        + (
            ", calibration.fitted.json (copy it to backend/sourcecheck/calibration.json to use it)"
            if report["fit"]
            else ""
        )
    )


def benchmark_files(data: list[str], folder: str | None) -> list[str]:
    """The files to evaluate: a path as given; a public set's name (public/) its fetched dev.jsonl, fetched
    now (a git checkout at the pinned commit, converted) when it is not there yet."""
    from pathlib import Path

    from sourcecheck_eval import public

    out = Path(folder) if folder else public.DEFAULT_OUT
    names = [d for d in data if d in public.SETS and not Path(d).is_file()]
    missing = [n for n in names if not public.current(out, n)]  # absent, or converted from other pinned commits
    if missing:
        public.fetch(out, missing, log=lambda line: print(line, file=sys.stderr))
    return [str(out / d / "dev.jsonl") if d in names else d for d in data]
