"""scripts/bench --only check: the answer checked by our pipeline (cold, then warm: the verdict cache) and by a naive
one (per sentence: its own search, a critique, then the verdict), on the real model."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sourcecheck.config import load_settings
from sourcecheck.prompting import messages

from sourcecheck_eval.bench.data import ANSWER, TEXT, WORK, now
from sourcecheck_eval.bench.host import cpu_seconds, others_cores_between

if TYPE_CHECKING:  # annotations only: the pipeline and the model are imported where they are used
    from sourcecheck.check import CheckOptions
    from sourcecheck.judge import Judge
    from sourcecheck.library import Library
    from sourcecheck.llm.base import Model


def bench_check(lib: Library, r: dict[str, Any], ablation: bool = False) -> None:
    from sourcecheck.check import CheckOptions, check_text
    from sourcecheck.judge import Judge
    from sourcecheck.llm import load_model

    from sourcecheck_eval.judge import LabJudge

    settings = load_settings({"INDEX_DIR": str(WORK / "index")})
    lib.search("warm up")  # a running server has its embedding model and BM25 index loaded already
    model = load_model(settings)
    t = now()
    model.prepare()
    r["model"], r["model_load_s"] = model.name, now() - t
    counts = count_tokens(model)

    def judge() -> Judge:
        return Judge(model, sensitivity=settings["SENSITIVITY"])  # as `sourcecheck serve` judges

    def run(name: str, pipeline: Callable[[Judge], Iterable[tuple[int, str]]], j: Judge) -> None:
        # Every pipeline starts from the same KV cache: the system prompt and the verify prompt's opening.
        model.choose(messages("verify", sources="(none found)", claim="Warm-up."), ("Yes", "No"))
        counts.update(prompt=0, written=0)
        first: float | None
        verdicts: float | None
        labels: dict[int, str] | list[str]  # by sentence index, then in order
        start, t0, first, verdicts, labels = cpu_seconds(), now(), None, None, {}
        for index, label in pipeline(j):  # a sentence may come twice: scored, then with its critique
            first = first or now() - t0
            labels[index] = label
            if verdicts is None and len(labels) == len(ANSWER):
                verdicts = now() - t0
        end, wall = cpu_seconds(), now() - t0
        labels = [labels[i] for i in sorted(labels)]
        r[name] = {
            "first_s": first,
            "verdicts_s": verdicts,
            "all_s": wall,
            "labels": labels,
            **counts,
            "others_cores": others_cores_between(start, end, wall),
        }
        print(
            f"  {name}: first {first:.1f} s, all verdicts {verdicts:.1f} s, with critiques {wall:.1f} s, "
            f"{counts}, {labels}",
            flush=True,
        )

    def ours(options: CheckOptions) -> Callable[[Judge], Iterator[tuple[int, str]]]:
        def pipeline(j: Judge) -> Iterator[tuple[int, str]]:
            for event in check_text(TEXT, lib, j, options=options):
                if event["type"] == "verdict":
                    yield event["index"], event["label"]

        return pipeline

    shared = judge()
    run("ours", ours(CheckOptions(top_k=settings["TOP_K"])), shared)
    run("warm", ours(CheckOptions(top_k=settings["TOP_K"])), shared)  # same judge: the verdict cache
    if ablation:  # our pipeline without the shared evidence block
        unshared = LabJudge(model, prompt_evidence="passages", sensitivity=settings["SENSITIVITY"])
        run("unshared", ours(CheckOptions(top_k=settings["TOP_K"])), unshared)
    run("naive", lambda j: naive(lib, j, settings["TOP_K"]), judge())


def naive(lib: Library, judge: Judge, k: int) -> Iterator[tuple[int, str]]:
    """Per sentence: its own search, its top-k full chunks, a critique, then the verdict (Factored Verification)."""
    from sourcecheck.cards import CONTRADICTING
    from sourcecheck.citations import strip_citations
    from sourcecheck.evidence import Evidence
    from sourcecheck.sentences import split_sentences

    names = {d["id"]: d["filename"] for d in lib.list()}
    for s in split_sentences(TEXT):
        if not s.checkable:
            continue
        claim = strip_citations(s.text)
        evidence = [
            Evidence(h.document_id, names[h.document_id], h.page, " ".join(h.text.split()), h.text, h.fused)
            for h in reversed(lib.search(claim, k, None, 4 * k))
        ]
        found = judge.critique(claim, evidence, evidence)  # for every sentence, before the verdict
        label = judge.score(claim, evidence).label  # P(Yes) and the judge's calibration
        yield (
            s.index,
            label
            if label == "supported"
            else ("contradicted" if found["error_type"] in CONTRADICTING else "unsupported"),
        )


def count_tokens(model: Model) -> dict[str, int]:
    """Count the tokens llama.cpp evaluates: prompt tokens (read in batches) and written ones (one at a time)."""
    counts = {"prompt": 0, "written": 0}
    if not hasattr(model, "load"):  # not llama.cpp (SOURCECHECK_BACKEND=fake: a smoke test of this script)
        return counts
    llm = model.load()
    evaluate = llm.eval

    def counting(tokens: Sequence[int]) -> Any:
        counts["prompt" if len(tokens) > 1 else "written"] += len(tokens)
        return evaluate(tokens)

    llm.eval = counting
    return counts
