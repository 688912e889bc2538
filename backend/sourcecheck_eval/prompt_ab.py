"""Verify prompts that read fewer tokens, against the shipped one, on the same sentences with the same evidence
(issue 35): `python -m sourcecheck_eval.prompt_ab [--limit N] [--out FILE]`.

Of a check's prompt tokens ~66 % are evidence and ~24 % the sentences with the question after each (docs/
performance.md). Two variants, each cutting one:
* "question first": the shipped prompt asks its question after the claim, so every sentence reads it again (~55
  tokens of ~410); this asks it once, before the excerpts, where the check's cached prefix keeps it, and ends each
  sentence's part with a short reminder.
* "three passages": each sentence adds its 3 most relevant evidence items to the shared block instead of 5 (FAVA's
  top 5), so fewer new passages a sentence.
Every prompt scores the calibration set shipped with the package (calibrate.scores: each answer's sentences over one
growing evidence block, as a check scores them), answer by answer; the report gives per kind each prompt's AUROC,
the paired difference from the shipped prompt with a 95 % interval over answers, and the prompt tokens each read. A
prompt change moves the judge's scale, so a variant that holds its ranking still needs its own calibration
(`sourcecheck calibrate`) before it could ship.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from string import Template
from typing import Any

import numpy as np
from sourcecheck.calibrate import answers, scores
from sourcecheck.config import load_settings
from sourcecheck.errors import ConfigError
from sourcecheck.evidence import Evidence
from sourcecheck.judge import Judge
from sourcecheck.llm import load_model
from sourcecheck.llm.base import Model
from sourcecheck.prompting import fence, prompt, sources_text

from sourcecheck_eval.metrics import auroc

QUESTION_FIRST = Template(
    "Is the claim at the end supported by the source excerpts? It is supported only if the excerpts state it or "
    "clearly imply it: every number, name, date and relation in the claim must agree with them. Answer with one "
    "word: Yes or No.\n\nSource excerpts:\n$sources\n\nClaim: $claim\n\nSupported? Yes or No."
)
RESAMPLES = 1000
FEWER = 3  # evidence items a sentence adds to the block under "three passages"


class QuestionFirst(Judge):
    """The shipped judge with the question asked before the excerpts (in the cached prefix), not after the claim."""

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        if self.profile != "verify":  # a model with a prompt of its own (MiniCheck) would change more than the order
            raise ConfigError(f"The prompt A/B varies our verify prompt; {model.name} asks its own ({self.profile}).")

    def verify_messages(
        self, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> list[dict[str, str]]:
        text = QUESTION_FIRST.substitute(sources=fence(sources_text(evidence, shown)), claim=fence(claim, labels=False))
        return [{"role": "system", "content": prompt("system").template.strip()}, {"role": "user", "content": text}]


def counted(model: Any) -> list[int]:
    """Count the prompt tokens llama.cpp reads from now on (a one-item list, added to in place); nothing for a
    backend without llama.cpp's eval."""
    read = [0]
    if not hasattr(model, "load"):
        return read
    llm = model.load()
    evaluate = llm.eval

    def counting(batch: Sequence[int]) -> Any:
        read[0] += len(batch)
        return evaluate(batch)

    llm.eval = counting
    return read


def fewer(row: dict[str, Any], n: int = FEWER) -> dict[str, Any]:
    """An answer of the calibration set with each sentence's evidence cut to its n most relevant items (the last n:
    the evidence is most relevant last)."""
    return {**row, "sentences": [{**s, "evidence": s["evidence"][-n:]} for s in row["sentences"]]}


def compare(found: dict[str, list[tuple[str, int, str, float]]]) -> dict[str, Any]:
    """Per kind: each prompt's AUROC and, for each after the first, the paired difference from the first with a 95 %
    interval over answers. found: prompt -> [(answer id, label, kind, raw P(Yes))], the same sentences in the same
    order under every prompt."""
    names = list(found)
    base = found[names[0]]
    y = np.array([r[1] for r in base])
    p = {name: np.array([r[3] for r in found[name]]) for name in names}
    out: dict[str, Any] = {}
    for kind in sorted({k for _, _, k, _ in base}):
        rows = [i for i, (_, _, k, _) in enumerate(base) if k == kind]
        ids = sorted({base[i][0] for i in rows})
        by_answer = {a: [i for i in rows if base[i][0] == a] for a in ids}
        r: dict[str, Any] = {"sentences": len(rows), "errors": int(np.sum(y[rows] == 0))}
        r.update({name: auroc(y[rows], p[name][rows]) for name in names})
        rng = np.random.default_rng(0)
        picks = [[i for a in rng.choice(ids, len(ids)) for i in by_answer[a]] for _ in range(RESAMPLES)]
        for name in names[1:]:
            diffs = []
            for pick in picks:
                d0, d1 = auroc(y[pick], p[names[0]][pick]), auroc(y[pick], p[name][pick])
                if d0 is not None and d1 is not None:
                    diffs.append(d1 - d0)
            a0, a1 = r[names[0]], r[name]
            r[f"{name}: difference"] = None if a0 is None or a1 is None else a1 - a0
            r[f"{name}: interval"] = np.quantile(diffs, [0.025, 0.975]).tolist() if diffs else [None, None]
        out[kind] = r
    return out


def print_report(report: dict[str, Any], found: dict[str, Any]) -> None:
    print(", ".join(f"{k}: {report['tokens'][k]} prompt tokens, {report['seconds'][k]:.0f} s" for k in found))
    for kind, r in report["kinds"].items():
        line = f"{kind}: {r['sentences']} sentences ({r['errors']} errors): AUROC " + ", ".join(
            f"{n} {100 * r[n]:.1f}" if r[n] is not None else f"{n} -" for n in found
        )
        for name in list(found)[1:]:
            d, interval = r[f"{name}: difference"], r[f"{name}: interval"]
            if d is not None and interval[0] is not None:
                lo, hi = (100 * x for x in interval)
                line += f"; {name} {100 * d:+.1f} [{lo:+.1f}, {hi:+.1f}]"
        print(line)


def taking_turns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers with the kinds taking turns, so a run stopped part way has some of every kind."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        kinds.setdefault(row["kind"], []).append(row)
    queues = list(kinds.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def write(path: str, data: dict[str, Any]) -> None:
    """Write JSON whole or not at all: a run stopped while writing keeps the file of its last answer."""
    part = Path(path).with_suffix(".part")
    part.write_text(json.dumps(data, indent=1), encoding="utf-8")
    part.replace(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="answers of each kind (default: all)")
    parser.add_argument("--out", help="write the per-sentence scores and the report here (JSON), answer by answer")
    parser.add_argument("--report", help="only print the report of an earlier run's --out file (finished or not)")
    args = parser.parse_args(argv)
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            saved = json.load(f)
        done = {name: [tuple(r) for r in rows] for name, rows in saved["scores"].items()}
        print_report({"tokens": saved["tokens"], "seconds": saved["seconds"], "kinds": compare(done)}, done)
        return 0
    settings = load_settings()
    model = load_model(settings)
    # name -> (judge, the answer as it shows it); made before the model loads, so a refused profile is said at once
    try:
        judges = {
            "shipped": (Judge(model), lambda row: row),
            "question first": (QuestionFirst(model), lambda row: row),
            "three passages": (Judge(model), fewer),
        }
    except ConfigError as e:
        print(e.message, file=sys.stderr)
        return 2
    model.prepare()
    read = counted(model)
    rows = taking_turns(answers(args.limit))
    found: dict[str, list[tuple[str, int, str, float]]] = {name: [] for name in judges}
    tokens = dict.fromkeys(judges, 0)
    seconds = dict.fromkeys(judges, 0.0)
    # answer by answer, each under both prompts: a run stopped part way has paired scores for what it did
    for n, row in enumerate(rows):
        for name, (judge, shown) in judges.items():
            # its prompts' opening cached first, not counted: a served check finds it so (Judge.warm_up at start)
            model.choose(judge.verify_messages("Warm-up.", [], []), ("Yes", "No"))
            before, started = read[0], time.monotonic()
            found[name] += [(f"{row['kind']}-{n}", y, kind, p) for p, y, kind in scores(judge, [shown(row)])]
            tokens[name] += read[0] - before
            seconds[name] += time.monotonic() - started
        print(f"[{n + 1}/{len(rows)}] " + ", ".join(f"{k}: {tokens[k]} tokens, {seconds[k]:.0f} s" for k in judges))
        if args.out:
            write(args.out, {"tokens": tokens, "seconds": seconds, "scores": found})
    report: dict[str, Any] = {"tokens": tokens, "seconds": seconds, "kinds": compare(found)}
    print_report(report, found)
    if args.out:
        write(args.out, {**report, "scores": found})
    return 0


if __name__ == "__main__":
    sys.exit(main())
