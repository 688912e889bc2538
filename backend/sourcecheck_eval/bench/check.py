"""scripts/bench --only check: the answer checked by our pipeline (cold, then warm: the verdict cache and the
library's kept sentence vectors) and by a naive one (per sentence: its own search, a critique, then the verdict),
on the real model."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sourcecheck.config import load_settings

from sourcecheck_eval.bench.data import ANSWER, INDEX, TEXT, now
from sourcecheck_eval.bench.host import cpu_seconds, others_cores_between

if TYPE_CHECKING:  # annotations only: the pipeline and the model are imported where they are used
    from sourcecheck.check import CheckOptions
    from sourcecheck.judging.judge import Judge
    from sourcecheck.library import Library


def bench_check(lib: Library, r: dict[str, Any], ablation: bool = False) -> None:
    from sourcecheck.check import CheckOptions, check_text
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm import load_model

    from sourcecheck_eval.judge import lab_judge

    settings = load_settings({"INDEX_DIR": str(INDEX)})
    lib.search("warm up")  # a running server has its embedding model and BM25 index loaded already
    model = load_model(settings)
    t = now()
    model.prepare()
    r["model"], r["model_load_s"] = model.name, now() - t
    counts = TokenCount(model)

    def judge() -> Judge:
        return Judge(model, sensitivity=settings["SENSITIVITY"])  # as `sourcecheck serve` judges

    def run(name: str, pipeline: Callable[[Judge], Iterable[tuple[int, str, bool]]], j: Judge) -> None:
        # Every pipeline starts from the same KV cache, as a served check does after the server's warm-up
        # (Judge.warm_up): the system prompt and the verify prompt's opening.
        model.choose(j.verify_messages("Warm-up.", [], []), ("Yes", "No"))
        counts.reset()
        first: float | None
        verdicts: float | None
        settled: float | None
        labels: dict[int, str] | list[str]  # by sentence index, then in order
        start, t0, first, verdicts, settled, labels = cpu_seconds(), now(), None, None, None, {}
        rereading: set[int] = set()
        # a sentence may come twice or three times: scored, read again (when its first read was unsure), and with its
        # critique; "all verdicts" is every sentence's first, "settled" every sentence's last before the critiques
        for index, label, again in pipeline(j):
            first = first or now() - t0
            labels[index] = label
            (rereading.add if again else rereading.discard)(index)
            if verdicts is None and len(labels) == len(ANSWER):
                verdicts = now() - t0
            if settled is None and len(labels) == len(ANSWER) and not rereading:
                settled = now() - t0
        end, wall = cpu_seconds(), now() - t0
        labels = [labels[i] for i in sorted(labels)]
        r[name] = {
            "first_s": first,
            "verdicts_s": verdicts,
            "settled_s": settled,
            "all_s": wall,
            "labels": labels,
            **{k: (dict(v) if isinstance(v, dict) else v) for k, v in counts.items()},
            "others_cores": others_cores_between(start, end, wall),
        }
        print(
            f"  {name}: first {first:.1f} s, all verdicts {verdicts:.1f} s, settled {settled or 0:.1f} s "
            f"({(settled or 0) / (verdicts or 1):.2f}× all verdicts), with critiques {wall:.1f} s, "
            f"{counts['prompt']} prompt tokens ({counts['reread']} read again), {counts['written']} written, {labels}",
            flush=True,
        )
        for part, n in sorted(counts["parts"].items()):
            print(f"    {part}: {n} tokens, {counts['seconds'][part]:.1f} s of model time", flush=True)

    def ours(options: CheckOptions) -> Callable[[Judge], Iterator[tuple[int, str, bool]]]:
        def pipeline(j: Judge) -> Iterator[tuple[int, str, bool]]:
            for event in check_text(TEXT, lib, j, options=options):
                if event["type"] == "verdict":
                    yield event["index"], event["label"], event["rereading"]

        return pipeline

    shared = judge()
    run("ours", ours(CheckOptions(top_k=settings["TOP_K"])), shared)
    run("warm", ours(CheckOptions(top_k=settings["TOP_K"])), shared)  # same judge and library: both caches
    if ablation:  # our pipeline without the shared evidence block, its sentences embedded afresh as in "ours"
        lib.sentence_vectors.clear()
        unshared = lab_judge(model, prompt_evidence="passages", sensitivity=settings["SENSITIVITY"])
        run("unshared", ours(CheckOptions(top_k=settings["TOP_K"])), unshared)
    run("naive", lambda j: naive(lib, j, settings["TOP_K"]), judge())


def naive(lib: Library, judge: Judge, k: int) -> Iterator[tuple[int, str, bool]]:
    """Per sentence: its own search, its top-k full chunks, a critique, then the verdict (Factored Verification)."""
    from sourcecheck.check import score_sentence
    from sourcecheck.evidence import Evidence, prompt_order
    from sourcecheck.judging.cards import CONTRADICTING
    from sourcecheck.judging.explaining import critique
    from sourcecheck.text.citations import strip_citations
    from sourcecheck.text.sentences import split_sentences

    names = {d["id"]: d["filename"] for d in lib.list()}
    for s in split_sentences(TEXT):
        if not s.checkable:
            continue
        claim = strip_citations(s.text)
        evidence = [
            Evidence(h.document_id, names[h.document_id], h.page, " ".join(h.text.split()), h.text, h.fused)
            for h in lib.search(claim, k, None, 4 * k)
        ]
        found = critique(judge, claim, evidence, prompt_order(evidence))  # for every sentence, before the verdict
        label = score_sentence(judge, claim, evidence).label  # P(Yes) and the judge's calibration
        yield (
            s.index,
            label
            if label == "supported"
            else ("contradicted" if found["error_type"] in CONTRADICTING else "unsupported"),
            False,
        )


class TokenCount(dict):
    """The tokens llama.cpp evaluates during a pipeline, by where they go: "prompt" (read in batches) and "written"
    (one at a time), and the prompt's tokens by part and their share of model time in "parts": per prompt kind
    (verify: the Yes/No question; critique: the card's three lines), its "instructions" (the system turn and the
    prompt's opening), its "evidence" (the source excerpts) and its "claim" (the sentence and the question after it);
    "reread": tokens read again with the same prefix, which a kept cache would have spared (a subset of the parts)."""

    def __init__(self, model: Any) -> None:
        super().__init__(prompt=0, written=0, parts={}, seconds={}, reread=0)
        self._bounds: tuple[str, int, int] = ("verify", 0, 0)
        self._seen: set[int] = set()
        self._prompt_next = False
        self._llm: Any = None
        if not hasattr(model, "load"):  # not llama.cpp (SOURCECHECK_BACKEND=fake: a smoke test of this script)
            return
        self._llm = llm = model.load()
        tokens, evaluate = model.tokens, llm.eval

        def tokens_marking_parts(msgs: list[dict[str, str]]) -> list[int]:
            out = tokens(msgs)
            self._bounds = self.parts_of(llm.detokenize(out, special=True).decode("utf-8", "replace"), llm)
            self._prompt_next = True
            return out

        def counting(batch: Sequence[int]) -> Any:
            # the first evaluation after a prompt is made reads the prompt (one token when all the rest is cached);
            # later single tokens are written
            prompt, self._prompt_next = self._prompt_next or len(batch) > 1, False
            t = now()
            result = evaluate(batch)
            self.add(list(llm.input_ids[: llm.n_tokens]), len(batch), now() - t, prompt)
            return result

        model.tokens = tokens_marking_parts
        llm.eval = counting

    @staticmethod
    def parts_of(prompt: str, llm: Any) -> tuple[str, int, int]:
        """(prompt kind, token where the evidence starts, token where the claim starts) of a formatted prompt."""
        kind = "critique" if "Reply in exactly three lines" in prompt else "verify"
        opening, closing = "Source excerpts:\n", "\n\nClaim:"
        if opening not in prompt or closing not in prompt:
            return kind, 0, 0
        a, b = prompt.index(opening) + len(opening), prompt.rindex(closing)

        def size(text: str) -> int:
            return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

        return kind, size(prompt[:a]), size(prompt[:b])

    def add(self, context: list[int], n: int, seconds: float, prompt: bool = True) -> None:
        """n tokens just evaluated at the end of context (all tokens now in the cache), taking seconds; prompt: read
        from a prompt, else written."""
        if not prompt:
            self["written"] += n
            return
        self["prompt"] += n
        kind, a, b = self._bounds
        start = len(context) - n
        h = 0
        for pos, token in enumerate(context):
            h = hash((h, int(token)))
            if pos < start:
                continue
            part = f"{kind} {'instructions' if pos < a else 'evidence' if pos < b else 'claim'}"
            self["parts"][part] = self["parts"].get(part, 0) + 1
            self["seconds"][part] = self["seconds"].get(part, 0.0) + seconds / n
            if h in self._seen:
                self["reread"] += 1
            self._seen.add(h)

    def reset(self) -> None:
        """Zero the counts; what the cache holds now counts as read (a later prompt reading it again re-reads)."""
        self.update(prompt=0, written=0, parts={}, seconds={}, reread=0)
        self._seen.clear()
        h = 0
        for token in self._llm.input_ids[: self._llm.n_tokens] if self._llm is not None else ():
            h = hash((h, int(token)))
            self._seen.add(h)
