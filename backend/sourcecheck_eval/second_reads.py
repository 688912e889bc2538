"""Ways of reading again the sentences the first read is unsure of, measured on what eval runs kept (issue 48): the
claim against its aligned source sentences (aligned.py), and each of its atomic claims (Judge.decompose) against its
own aligned sentences, beside the first read and the product's second read (each passage alone, the best kept).

    python -m sourcecheck_eval.second_reads read OUT.jsonl RUN_DIR...   # the real judge; resumes, a row a sentence
    python -m sourcecheck_eval.second_reads report OUT.jsonl            # AUROC within the band, 95 % intervals

The rows measured (with the prompt pointing at the most relevant excerpt) are in
tests/data/features/second_reads_dev.jsonl.gz (`report` reads it as is).

Only development halves and no record kept aside; sentences whose first P(supported) lies within the shipped
balanced band widened by WIDEN on each side. Measured, not shipped (docs/quality.md).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sourcecheck.evidence import Evidence, prompt_order
from sourcecheck.judging.calibration import platt
from sourcecheck.text.citations import strip_citations

from sourcecheck_eval.aligned import aligned
from sourcecheck_eval.calibration_set import dev_answers
from sourcecheck_eval.metrics import auroc
from sourcecheck_eval.records import gold

WIDEN = 0.05
CALIBRATION = Path(__file__).resolve().parents[1] / "sourcecheck" / "calibration.json"


def in_band(run: str | Path) -> Iterator[tuple[list[Any], str, int, dict[str, Any], list[Evidence]]]:
    """(key, claim, y, verdict, evidence most relevant first) of each labelled development sentence of the run whose
    first read falls in the widened band."""
    cal = json.loads(CALIBRATION.read_text())
    lo, hi = cal["bands"]["balanced"][0] - WIDEN, cal["bands"]["balanced"][1] + WIDEN
    for name, record, result, mapped, turned in dev_answers(run):
        verdicts = {v["index"]: v for v in result["verdicts"]}
        texts = {s["index"]: s["text"] for s in result["sentences"]}
        shared = Counter(parts[0] for _, parts, reason in mapped if not reason and len(parts) == 1)
        for x, parts, reason in mapped:
            if not reason and len(parts) == 1 and shared[parts[0]] > 1:
                continue  # a checked sentence merged from two labelled ones: their labels may disagree
            v = verdicts[parts[0]] if not reason and len(parts) == 1 else None
            if v is None or v.get("read") is None or v["label"] == "contradicted":
                continue
            if not lo <= platt(v["p_raw"], cal["a"], cal["b"]) < hi:
                continue
            read = v["read"][::-1] if turned else v["read"]
            evidence = [
                Evidence(e.get("filename", ""), e.get("filename", ""), e.get("page", 0), e["quote"], e["passage"], 0)
                for e in read
            ]
            claim = strip_citations(texts[parts[0]])
            yield [name, record["id"], parts[0]], claim, int(x.get("y", gold(x))), v, evidence


def aligned_read(judge: Any, claim: str, evidence: Sequence[Evidence]) -> float:
    """P(Yes) of the claim against its aligned source sentences. evidence: most relevant first, as the prompt builder
    takes it to point at the best excerpt; the sentences shown in the prompt's order (aligned.py keeps it)."""
    shown = aligned(claim, prompt_order(evidence))
    return float(judge.p_yes(claim, evidence, shown))


def read(out: Path, runs: Sequence[str]) -> None:
    from sourcecheck.config import load_settings
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm import load_model

    done = {tuple(json.loads(line)["key"]) for line in out.read_text().splitlines()} if out.exists() else set()
    judge = Judge(load_model(load_settings({})))
    judge.prepare()
    with out.open("a") as f:
        for run in runs:
            for key, claim, y, v, evidence in in_band(run):
                if tuple(key) in done:
                    continue
                started = time.monotonic()
                parts = judge.decompose(claim) if len(claim.split()) > 12 else [claim]
                row = {
                    "key": key,
                    "y": y,
                    "p_raw": v["p_raw"],
                    "alone": v.get("alone"),
                    "aligned": aligned_read(judge, claim, evidence),
                    "parts": parts,
                    "p_parts_aligned": [aligned_read(judge, part, evidence) for part in parts],
                    "s": round(time.monotonic() - started, 1),
                }
                f.write(json.dumps(row) + "\n")
                f.flush()
                done.add(tuple(key))


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


READS: dict[str, Callable[[dict[str, Any]], float]] = {
    "first read": lambda r: r["p_raw"],
    "each passage alone, best (shipped)": lambda r: max(r["alone"]) if r["alone"] else r["p_raw"],
    "aligned sentences": lambda r: r["aligned"],
    "atomic claims on their aligned sentences, lowest": lambda r: min(r["p_parts_aligned"]),
    "first read + aligned (logits summed)": lambda r: _logit(r["p_raw"]) + _logit(r["aligned"]),
}


def report(path: Path, resamples: int = 1000) -> str:
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    rows = [json.loads(line) for line in text.splitlines()]
    rng = np.random.default_rng(0)
    lines = []
    for kind in sorted({r["key"][0].removesuffix("-dev") for r in rows}):
        mine = [r for r in rows if r["key"][0].removesuffix("-dev") == kind]
        records = sorted({r["key"][1] for r in mine})
        by_record = {k: [r for r in mine if r["key"][1] == k] for k in records}
        cells = []
        for name, score in READS.items():
            found = auroc([r["y"] for r in mine], [score(r) for r in mine])
            point = float("nan") if found is None else found
            draws: list[float] = []
            for _ in range(resamples):
                drawn = [r for k in rng.choice(records, len(records)) for r in by_record[k]]
                value = auroc([r["y"] for r in drawn], [score(r) for r in drawn])
                if value is not None:
                    draws.append(value)
            low, high = np.quantile(draws, [0.025, 0.975]) if draws else (float("nan"), float("nan"))
            cells.append(f"{name} {100 * point:.1f} [{100 * low:.0f}–{100 * high:.0f}]")
        errors = sum(r["y"] == 0 for r in mine)
        lines.append(f"{kind} ({len(mine)} sentences, {errors} errors): " + "; ".join(cells))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sourcecheck_eval.second_reads", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("read", help="read the in-band sentences again (the real judge)")
    r.add_argument("out", type=Path)
    r.add_argument("runs", nargs="+")
    s = sub.add_parser("report", help="AUROC of each way within the band")
    s.add_argument("out", type=Path)
    args = p.parse_args(argv)
    if args.command == "read":
        read(args.out, args.runs)
    else:
        print(report(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
