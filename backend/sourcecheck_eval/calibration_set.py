"""The calibration set shipped in the package (calibrate.py reads it): labelled sentences of development data of
several kinds of text, each with the evidence the product chose for it, taken from `sourcecheck eval` runs.

    python -m sourcecheck_eval.calibration_set RUN_DIR... [--sentences 45] [--out PATH]

Only development data (never a `-test` half, never a record kept aside); only sets whose licence allows shipping an
excerpt (LICENCES; LFQA has no licence and is left out); whole answers, drawn at random (seed 0) per kind until a kind
has its share of labelled sentences, so that each answer's sentences replay over one evidence block as a check scores
them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from sourcecheck.text.citations import strip_citations

from sourcecheck_eval.align import align
from sourcecheck_eval.kept_aside import kept_aside
from sourcecheck_eval.operating import HELD_OUT, kind_of
from sourcecheck_eval.records import gold, load_records

OUT = Path(__file__).resolve().parents[1] / "sourcecheck" / "calibration_set.jsonl.gz"
LICENCES = {
    "chatpdfs": "answers: this project's (MIT); sources: abstracts of the Elicit FAVE paper set (MIT)",
    "fullpapers": "answers: this project's (MIT); passages: R-package vignettes of Debian bookworm (GPL-2, GPL)",
    "tofueval": "TofuEval MeetingBank: annotations MIT-0 (Amazon), transcripts Creative Commons (meetingbank)",
    "wice": "WiCE: CC BY-SA (Wikipedia) and the cited web pages under Common Crawl terms",
    "factcheck_gpt": "Factcheck-GPT: Apache-2.0",
}


def dev_answers(
    run: str | Path, kinds: Collection[str] | None = None
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any], list[tuple[Any, ...]], bool]]:
    """Each development answer of a run (of these kinds) that is not kept aside: (set name, record, the run's cached
    result, [(labelled sentence, the checked sentences it maps onto, why not)], whether the run kept evidence lists
    the old way round)."""
    run = Path(run)
    report = json.loads((run / "results.json").read_text())
    # a run from before evidence lists were most relevant first kept them the other way round
    turned = report.get("evidence_order") != "most relevant first"
    for name, ds in report["datasets"].items():
        if name.endswith(HELD_OUT) or (kinds is not None and kind_of(name) not in kinds):
            continue
        records = {r["id"]: r for r in load_records(ds["file"])}
        for line in (run / "cache" / f"{name}-{report['fingerprint']}.jsonl").read_text().splitlines():
            result = json.loads(line)
            record = records.get(result["id"])
            if record is None or result["error"] or kept_aside(record["id"]):
                continue
            labelled = [
                x
                for x in record["labels"]
                if x["level"] in ("sentence", "claim") and "sentence_index" not in x and gold(x) is not None
            ]
            found = align([x["text"] for x in labelled], record["text"], result["sentences"], result["verdicts"])
            yield name, record, result, [(x, parts, reason) for x, (parts, reason) in zip(labelled, found)], turned


def answers_of(run: str | Path) -> list[dict[str, Any]]:
    """Every answer of a run's development sets as {"kind", "id", "sentences": [{"claim", "y", "evidence"}]}: the
    labelled sentences that map onto one checked sentence each, in the order the check scored them; each sentence's
    evidence as the run read it (`read`: most relevant first, as every evidence list is)."""
    out = []
    for name, record, result, mapped, turned in dev_answers(run, LICENCES):
        verdicts = {v["index"]: v for v in result["verdicts"]}
        texts = {s["index"]: s["text"] for s in result["sentences"]}
        found = {}
        for x, parts, reason in mapped:
            if not reason and len(parts) == 1 and verdicts[parts[0]].get("read") is not None:
                found[parts[0]] = int(x.get("y", gold(x)))
        sentences = [
            {
                "claim": strip_citations(texts[i]),
                "y": found[i],
                "evidence": verdicts[i]["read"][::-1] if turned else verdicts[i]["read"],
            }
            for i in sorted(found)
        ]
        if sentences:
            out.append({"kind": kind_of(name), "id": record["id"], "sentences": sentences})
    return out


def choose(answers: list[dict[str, Any]], per_kind: int, seed: int = 0) -> list[dict[str, Any]]:
    """Whole answers at random, per kind, until the kind has per_kind labelled sentences."""
    rng = random.Random(seed)
    chosen = []
    for kind in sorted({a["kind"] for a in answers}):
        mine = sorted((a for a in answers if a["kind"] == kind), key=lambda a: a["id"])
        rng.shuffle(mine)
        n = 0
        for a in mine:
            if n >= per_kind:
                break
            chosen.append(a)
            n += len(a["sentences"])
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sourcecheck_eval.calibration_set", description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="`sourcecheck eval` output folders (their cache and results.json)")
    p.add_argument("--sentences", type=int, default=45, help="labelled sentences per kind (default 45)")
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    chosen = choose([a for run in args.runs for a in answers_of(run)], args.sentences)
    lines = "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in chosen)
    Path(args.out).write_bytes(gzip.compress(lines.encode("utf-8"), mtime=0))
    kinds: dict[str, int] = {}
    for a in chosen:
        kinds[a["kind"]] = kinds.get(a["kind"], 0) + len(a["sentences"])
    print(f"{sum(kinds.values())} sentences in {len(chosen)} answers: {kinds} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
