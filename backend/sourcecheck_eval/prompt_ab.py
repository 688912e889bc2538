"""Verify prompts against the shipped one, on the same sentences with the same evidence (issue 35):
`python -m sourcecheck_eval.prompt_ab [--limit N] [--kinds K,...] [--prompts A,B,...] [--out FILE] [--reuse FILE]`.

The shipped prompt asks its question after every claim and each sentence adds its five evidence items (TOP_K) to the
check's shared block (judge.py). The variants cut what a check reads: the question once, before the excerpts, where
the check's cached prefix keeps it (measured on 2026-11-29, docs/performance.md); four or three evidence items a
sentence; both.
Every prompt scores the calibration set shipped with the package (calibrate.scores: each answer's sentences over one
growing evidence block, as a check scores them), answer by answer; the report gives per kind each prompt's AUROC, the
paired difference from the first prompt named with a 95 % interval over answers, and the prompt tokens each read. A
prompt change moves the judge's scale, so a variant that holds its ranking still needs its own calibration before it
could ship (docs/judges.md). --reuse takes an earlier --out file's scores of a prompt with the same words and
passages (its fingerprint) on the same sentences, so a new variant runs alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from string import Template
from typing import Any

import numpy as np
from sourcecheck.config import load_settings
from sourcecheck.errors import ConfigError
from sourcecheck.evidence import Evidence, EvidenceBlock
from sourcecheck.judging.calibrate import answers, scores
from sourcecheck.judging.judge import Asking, Judge
from sourcecheck.judging.prompting import fence, prompt, sources_text
from sourcecheck.llm import load_model
from sourcecheck.llm.base import Model

from sourcecheck_eval.metrics import auroc

QUESTION_FIRST = Template(  # the verify prompt measured on 2026-11-29 and not kept (docs/performance.md)
    "Is the claim at the end supported by the source excerpts? It is supported only if the excerpts state it or "
    "clearly imply it: every number, name, date and relation in the claim must agree with them.\n\nSource excerpts:\n"
    "$sources\n\nClaim: $claim\n\nSupported? Answer with one word: Yes or No."
)
RESAMPLES = 1000


class VariantAsking(Asking):
    """The shipped way of asking with its verify prompt varied: the question once, before the excerpts, where a
    check's cached prefix keeps it, instead of after every claim (question_first), and `passages` evidence items (the
    most relevant) a sentence adds to the block instead of all five."""

    def __init__(self, passages: int | None = None, question_first: bool = False) -> None:
        if passages is not None and passages < 1:
            raise ConfigError(f"A prompt shows at least one evidence item, not {passages}.")
        self.passages, self.question_first = passages, question_first

    def show(self, judge: Judge, claim: str, evidence: list[Evidence], block: EvidenceBlock) -> list[Evidence]:
        return super().show(judge, claim, evidence if self.passages is None else evidence[: self.passages], block)

    def verify_messages(
        self, judge: Judge, claim: str, evidence: Sequence[Evidence], shown: Sequence[Evidence]
    ) -> list[dict[str, str]]:
        if not self.question_first:
            return super().verify_messages(judge, claim, evidence, shown)
        text = QUESTION_FIRST.substitute(sources=fence(sources_text(evidence, shown)), claim=fence(claim, labels=False))
        return [{"role": "system", "content": prompt("system").template.strip()}, {"role": "user", "content": text}]


def Variant(model: Model, passages: int | None = None, question_first: bool = False) -> Judge:  # noqa: N802
    """The shipped judge asking as a VariantAsking does."""
    judge = Judge(model, asking=VariantAsking(passages, question_first))
    if judge.profile != "verify":  # a model with a prompt of its own (MiniCheck) would change more than the order
        raise ConfigError(f"The prompt A/B varies our verify prompt; {model.name} asks its own ({judge.profile}).")
    return judge


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


def fingerprint(judge: Judge) -> str:
    """What a prompt's scores depend on besides the set: the model, its words and how many passages it adds."""
    passages = getattr(judge.asking, "passages", None)  # the shipped judge: all of them
    text = json.dumps([judge.model.judge_id(), judge.verify_messages("$claim", [], []), passages])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def reused(
    path: str, judges: dict[str, Judge], expected: list[tuple[str, int, str]]
) -> dict[str, tuple[list[Any], int, float]]:
    """The scores of an earlier --out file's prompts whose fingerprint is today's and that scored exactly the
    sentences expected ((answer id, label, kind) in order): name -> (scores, tokens, seconds); the tokens and seconds
    are of the whole earlier run, whatever --kinds it had."""
    with open(path, encoding="utf-8") as f:
        saved = json.load(f)
    kept = {}
    for name, judge in judges.items():
        if saved.get("fingerprints", {}).get(name) != fingerprint(judge):
            continue  # another prompt under this name, or a file from before fingerprints
        rows = [tuple(r) for r in saved["scores"].get(name, []) if r[2] in {k for _, _, k in expected}]
        if [r[:3] for r in rows] == expected:
            kept[name] = (rows, saved["tokens"][name], saved["seconds"][name])
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="answers of each kind (default: all)")
    parser.add_argument("--out", help="write the per-sentence scores and the report here (JSON), answer by answer")
    parser.add_argument("--report", help="only print the report of an earlier run's --out file (finished or not)")
    parser.add_argument(
        "--prompts", help="the prompts to run, comma-separated (default: all); the first is the reference"
    )
    parser.add_argument("--kinds", help="only these kinds of the set, comma-separated (default: all)")
    parser.add_argument("--reuse", help="an earlier run's --out file: its prompts' scores are taken, not run again")
    args = parser.parse_args(argv)
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            saved = json.load(f)
        done = {name: [tuple(r) for r in rows] for name, rows in saved["scores"].items()}
        print_report({"tokens": saved["tokens"], "seconds": saved["seconds"], "kinds": compare(done)}, done)
        return 0
    settings = load_settings()
    model = load_model(settings)
    # name -> judge; made before the model loads, so a refused profile is said at once
    try:
        judges = {
            "shipped": Judge(model),
            "question first": Variant(model, question_first=True),
            "four passages": Variant(model, 4),
            "three passages": Variant(model, 3),
            "question first + four passages": Variant(model, 4, question_first=True),
            "question first + three passages": Variant(model, 3, question_first=True),
        }
    except ConfigError as e:
        print(e.message, file=sys.stderr)
        return 2
    if args.kinds and args.reuse and args.out and Path(args.out).resolve() == Path(args.reuse).resolve():
        print(
            "--out may be the --reuse file only without --kinds: the other kinds' scores would be lost", file=sys.stderr
        )
        return 2
    names = [n.strip() for n in args.prompts.split(",")] if args.prompts else list(judges)
    if unknown := [n for n in names if n not in judges]:
        print(f"No prompt named {', '.join(unknown)}; the prompts: {', '.join(judges)}", file=sys.stderr)
        return 2
    rows = taking_turns(answers(args.limit))
    kinds = {k.strip() for k in args.kinds.split(",")} if args.kinds else {r["kind"] for r in rows}
    if missing := kinds - {r["kind"] for r in rows}:
        print(f"No kind named {', '.join(sorted(missing))} in the calibration set", file=sys.stderr)
        return 2
    run = [(n, row) for n, row in enumerate(rows) if row["kind"] in kinds]  # n names the answer, whatever is run
    expected = [(f"{row['kind']}-{n}", int(s["y"]), row["kind"]) for n, row in run for s in row["sentences"]]
    judges = {n: judges[n] for n in names}
    prints = {n: fingerprint(j) for n, j in judges.items()}
    kept = reused(args.reuse, judges, expected) if args.reuse else {}
    judges = {n: j for n, j in judges.items() if n not in kept}
    if kept:  # their tokens and seconds are the earlier run's, over whatever kinds it had
        print(f"Reused from {args.reuse}: {', '.join(kept)}")
    if judges:
        model.prepare()
    read = counted(model)
    found: dict[str, list[tuple[str, int, str, float]]] = {name: [] for name in judges}
    tokens = dict.fromkeys(judges, 0)
    seconds = dict.fromkeys(judges, 0.0)
    # answer by answer, each under every prompt run: a run stopped part way has paired scores for what it did
    for step, (n, row) in enumerate(run if judges else []):
        for name, judge in judges.items():
            # its prompts' opening cached first, not counted: a served check finds it so (Judge.warm_up at start)
            model.choose(judge.verify_messages("Warm-up.", [], []), ("Yes", "No"))
            before, started = read[0], time.monotonic()
            found[name] += [(f"{row['kind']}-{n}", y, kind, p) for p, y, kind, _, _ in scores(judge, [row])]
            tokens[name] += read[0] - before
            seconds[name] += time.monotonic() - started
        print(f"[{step + 1}/{len(run)}] " + ", ".join(f"{k}: {tokens[k]} tokens, {seconds[k]:.0f} s" for k in judges))
        if args.out:  # the reused prompts too, so --out may be the --reuse file (without --kinds: checked above)
            write(args.out, {"fingerprints": prints, **merged(found, tokens, seconds, kept, names)})
    found = merged(found, tokens, seconds, kept, names)["scores"]
    report: dict[str, Any] = {"tokens": tokens, "seconds": seconds, "kinds": compare(found)}
    print_report(report, found)
    if args.out:
        write(args.out, {"fingerprints": prints, **report, "scores": found})
    return 0


def merged(
    found: dict[str, list[Any]],
    tokens: dict[str, int],
    seconds: dict[str, float],
    kept: dict[str, tuple[list[Any], int, float]],
    names: list[str],
) -> dict[str, Any]:
    """The scores, tokens and seconds of the prompts run (in place: tokens and seconds gain the reused ones) and
    reused, the scores in the order named (the reference first)."""
    for name, (_, n_tokens, n_seconds) in kept.items():
        tokens[name], seconds[name] = n_tokens, n_seconds
    scores = {n: kept[n][0] if n in kept else found[n] for n in names}
    return {"tokens": tokens, "seconds": seconds, "scores": scores}


if __name__ == "__main__":
    sys.exit(main())
