import os
import subprocess
import sys
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sourcecheck.conflict import find_conflict
from sourcecheck.evidence import (
    Evidence,
    SentenceVectors,
    format_sources,
    select_evidence,
    shortlist,
    split_passage,
)
from sourcecheck.library.search import Hit


def ev(passage):
    return Evidence("d", "a.pdf", 1, passage.split(".")[0], passage, 0.5)


# A paper's first chunk: its title and authors run into the abstract, close to every claim about the paper
TITLE = Hit(
    "t",
    "d1",
    1,
    0,
    300,
    "Stem reserve mobilization in wheat under drought A. Gupta, K. Kaur Abstract The "
    "effect of water deficit on stem reserves was studied. Two cultivars were compared.",
    0.80,
)
METHOD = Hit(
    "m",
    "d1",
    1,
    300,
    600,
    "Plants were grown in pots. Drought was imposed by withholding irrigation at "
    "95 days after sowing. Stem samples were taken weekly.",
    0.55,
)
OTHER = Hit("o", "d2", 1, 0, 200, "Heat stress shortened grain filling. Yields fell by a third.", 0.50)


def test_a_chunk_counts_by_its_best_sentence_which_is_its_quote():
    claim = "Drought was imposed by withholding irrigation at 85 days after sowing."
    shown = select_evidence(claim, [TITLE, OTHER, METHOD], {"d1": "a.pdf", "d2": "b.pdf"}, k=3)  # most relevant first
    assert shown[0].quote == "Drought was imposed by withholding irrigation at 95 days after sowing."
    assert "Plants were grown in pots." in shown[0].passage  # the judge reads the neighbours too
    assert len(shown) == 3


def test_the_quote_takes_in_a_neighbour_that_carries_another_part_of_a_merged_claim():
    claim = "Plants grown in pots had drought imposed at 95 days after sowing, with stem samples taken weekly."
    quote = select_evidence(claim, [METHOD], {"d1": "a.pdf"})[0].quote
    assert quote.startswith("Plants were grown in pots.") and quote.endswith("Stem samples were taken weekly.")
    single = select_evidence("Yields fell by a third.", [OTHER], {"d2": "b.pdf"})[0].quote
    assert single == "Yields fell by a third."  # a neighbour that adds nothing of the claim stays out


def test_a_sentence_is_embedded_once_when_a_claim_first_needs_it_and_kept_between_checks():
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return [[1.0, 0.0] if "drought" in t.lower() else [0.0, 1.0] for t in texts]

    vectors = SentenceVectors(embed)
    first = vectors.similarity("Drought hurt wheat.", [METHOD, OTHER])
    assert len(calls) == 1 and len(calls[0]) == 1 + 5  # the claim and five distinct sentences
    assert first["Drought was imposed by withholding irrigation at 95 days after sowing."] == 1.0
    assert first["Yields fell by a third."] == 0.0
    second = vectors.similarity("Yields fell.", [OTHER])
    assert calls[1] == ["Yields fell."]  # OTHER's sentences were embedded for the first claim
    assert second == {"Heat stress shortened grain filling.": 1.0, "Yields fell by a third.": 1.0}
    assert vectors.similarity("Drought hurt wheat.", [METHOD, OTHER]) == first and len(calls) == 2  # a re-check


def test_the_kept_sentence_vectors_are_bounded_and_drop_the_least_recently_used():
    calls = []

    def embed(texts):
        calls.extend(texts)
        return [[1.0, float(len(t))] for t in texts]

    vectors = SentenceVectors(embed, limit=3)
    vectors.vectors(["a", "bb", "ccc"])
    vectors.vectors(["a"])  # used again: "bb" is now the oldest
    vectors.vectors(["dddd"])
    calls.clear()
    got = vectors.vectors(["a", "ccc", "dddd", "bb"])
    assert calls == ["bb"]  # only the dropped one is embedded again
    assert set(got) == {"a", "bb", "ccc", "dddd"}
    assert np.linalg.norm(got["bb"]) == pytest.approx(1.0)  # unit vectors: a dot product is the cosine


def test_cleared_sentence_vectors_are_embedded_again():
    calls = []
    vectors = SentenceVectors(lambda texts: calls.extend(texts) or [[1.0, 0.0] for _ in texts])
    vectors.vectors(["a", "b"])
    vectors.clear()
    vectors.vectors(["a"])
    assert calls == ["a", "b", "a"]


def test_the_kept_sentence_vectors_are_read_only_copies_shared_safely_between_threads():
    calls, together = [], []

    def embed(texts):
        calls.extend(texts)
        if together:  # the four threads must all be embedding at once: no thread embeds while holding the lock
            together[0].wait()
        return np.ones((len(texts), 4)) * np.arange(1, len(texts) + 1)[:, None]

    vectors = SentenceVectors(embed, limit=50)
    got = vectors.vectors(["a", "b"])
    assert got["a"].base is None and not got["a"].flags.writeable  # a copy: the batch is not kept alive
    with pytest.raises(ValueError):
        got["a"][0] = 2.0  # one check cannot change another's vectors

    texts = [f"sentence {i}" for i in range(40)]
    together.append(threading.Barrier(4, timeout=10))
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda part: vectors.vectors(part), [texts[i::4] + texts[:10] for i in range(4)]))
    together.clear()
    for result in results:
        assert all(np.linalg.norm(v) == pytest.approx(1.0) for v in result.values())
    assert set(calls) == {"a", "b", *texts} and len(calls) <= 2 + 40 + 3 * 10  # each at most once per thread
    calls.clear()
    assert set(vectors.vectors(["a", "b", *texts])) == {"a", "b", *texts} and calls == []  # all 42 kept


def test_a_text_with_a_lone_surrogate_is_kept_apart_from_its_neighbours():
    vectors = SentenceVectors(lambda texts: [[1.0, float(len(t))] for t in texts])
    got = vectors.vectors(["a\ud800", "a\ud801", "a"])  # as JSON's "\\ud800" arrives
    assert len({v.tobytes() for v in got.values()}) == 2 and len(vectors._vectors) == 3


def test_a_kept_sentence_costs_under_2_kb_whatever_its_length():
    vectors = SentenceVectors(lambda texts: np.random.default_rng(0).random((len(texts), 384)), limit=5_000)
    vectors.vectors(["warm up"])  # the first call's one-time allocations are not a sentence's
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for start in range(0, 10_000, 100):  # twice the limit: the dropped ones are freed
            vectors.vectors([f"{start + i} " + "a long pasted claim " * 200 for i in range(100)])
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept / 5_000 < 2_000  # 384 float32s are 1,536 bytes (1.8 KB in all): a 4 KB text is not kept, nor its batch


def test_the_shortlist_keeps_the_chunks_that_match_the_claim_in_their_order():
    fillers = [
        Hit(f"f{i}", "d3", 2, 100 * i, 100 * i + 90, f"Unrelated note number {i} on soil.", 0.6) for i in range(12)
    ]
    hits = fillers[:6] + [METHOD] + fillers[6:]
    kept = shortlist("Drought was imposed at 95 days after sowing.", hits, n=3)
    assert len(kept) == 3 and METHOD in kept
    assert kept == sorted(kept, key=hits.index)  # the search's order, for the rerank to break ties as before
    assert shortlist("anything", [OTHER, METHOD], n=3) == [OTHER, METHOD]


def test_the_sentence_the_embedding_finds_closest_opens_the_card_where_words_do_not_tell():
    # two sentences sharing the claim's words equally; the embedding says which one the claim means
    hit = Hit("p", "d1", 1, 0, 200, "Yields fell in the dry plots. Yields rose in the watered plots.", 0.5)
    claim = "Irrigated plots gave more grain."
    similarity = {"Yields fell in the dry plots.": 0.1, "Yields rose in the watered plots.": 0.8}
    assert select_evidence(claim, [hit], {"d1": "a.pdf"}, similarity=similarity)[0].quote == (
        "Yields rose in the watered plots."
    )
    similarity = {"Yields fell in the dry plots.": 0.8, "Yields rose in the watered plots.": 0.1}
    assert select_evidence(claim, [hit], {"d1": "a.pdf"}, similarity=similarity)[0].quote == (
        "Yields fell in the dry plots."
    )


# A first chunk as chunking.py now writes it: the PDF's blocks on lines of their own
HEADER = Hit(
    "h",
    "d1",
    1,
    0,
    300,
    "Stem reserve mobilization in wheat under drought and heat\nA. Gupta, K. Kaur\n"
    "Abstract The effect of water deficit on stem reserves was studied. Reserves gave 40% of grain weight.",
    0.80,
)


def test_a_title_or_author_line_is_never_the_quote_but_the_judge_still_reads_it():
    claim = "Stem reserve mobilization in wheat under drought and heat was studied."
    similarity = {
        "Stem reserve mobilization in wheat under drought and heat": 0.95,
        "A. Gupta, K. Kaur": 0.1,
        "Abstract The effect of water deficit on stem reserves was studied.": 0.6,
        "Reserves gave 40% of grain weight.": 0.3,
    }
    (item,) = select_evidence(claim, [HEADER], {"d1": "a.pdf"}, similarity=similarity)
    assert item.quote == "Abstract The effect of water deficit on stem reserves was studied."
    assert item.passage.startswith("Stem reserve mobilization in wheat under drought and heat\nA. Gupta, K. Kaur\n")
    assert format_sources([item]).count("\n") == 0  # the prompt's "[1] passage" stays one line


def test_labels_are_lines_that_are_whole_titles_author_lists_or_headings():
    def labels(text):
        split = split_passage(text)
        return [split.sentences[i] for i in sorted(split.labels)]

    assert labels(HEADER.text) == ["Stem reserve mobilization in wheat under drought and heat", "A. Gupta, K. Kaur"]
    assert labels("COVID-19 vaccine uptake among nurses\n2.1 Drought treatment\nPlants were watered.") == [
        "COVID-19 vaccine uptake among nurses",
        "2.1 Drought treatment",
    ]
    # a block cut by a column break, an equation, a list item, a table row and an old one-line chunk: none
    assert labels("Drought cut yield. Under heat the reserves of the\nstem were used up early.\nMore text.") == []
    assert labels("The loss is defined as\nL = a + b\nwhere a is the error.") == []
    assert labels("• Drought reduces photosynthesis in wheat\nFAVA 81.3 Llama2 58.1\nEnd.") == []
    assert labels("Stem reserve mobilization in wheat A. Gupta Abstract The effect was studied.") == []


def test_a_raised_footnote_mark_on_a_line_of_its_own_does_not_cut_its_sentence():
    # PyMuPDF gives a superscript mark a line of its own: the line before it read as a heading (a label), and the
    # quote lost half its sentence (a vegan vignette's "only works in unix-like systems")
    text = "Forks are fast. Multicore only works in unix-like systems\n1\n(such as MacOS), but snow works in all.\nEnd."
    split = split_passage(text)
    assert split.labels == frozenset()
    assert "Multicore only works in unix-like systems 1 (such as MacOS), but snow works in all." in split.sentences
    claim = "Multicore works in all systems, snow only in unix-like systems such as MacOS."
    quote = select_evidence(claim, [Hit("h", "d1", 1, 0, 200, text, 0.5)], {"d1": "a.pdf"})[0].quote
    assert quote == "Multicore only works in unix-like systems 1 (such as MacOS), but snow works in all."
    # a symbol mark too; a number alone before a heading still numbers it, and an author's or a table header's
    # mark leaves its line a label
    dagger = split_passage(text.replace("\n1\n", "\n†\n"))
    assert "Multicore only works in unix-like systems † (such as MacOS), but snow works in all." in dagger.sentences
    assert split_passage("A Study of Things\n1\nIntroduction\nWe study.").labels == {0}
    authors = split_passage("A Study of Things\nAnn Fisher\n1\n, Bo Lind\n2\nAbstract We study.")
    assert "Ann Fisher" in [authors.sentences[i] for i in authors.labels]


def test_a_label_next_to_the_quote_is_not_taken_into_it():
    text = "Results\nDrought cut yield by 40%.\nStem reserves fell sharply\nHeat cut it by 10%."
    claim = "Drought cut yield by 40% and stem reserves fell sharply."
    quote = select_evidence(claim, [Hit("h", "d1", 1, 0, 200, text, 0.5)], {"d1": "a.pdf"})[0].quote
    assert quote == "Drought cut yield by 40%."
    # the same line ending like a sentence is no label, and joins the quote: it carries half of the claim
    text = text.replace("sharply", "sharply.")
    quote = select_evidence(claim, [Hit("h", "d1", 1, 0, 200, text, 0.5)], {"d1": "a.pdf"})[0].quote
    assert quote == "Drought cut yield by 40%. Stem reserves fell sharply."


def test_a_conflict_quotes_the_source_sentence_not_the_title_above_it():
    claim = "The abstract reports 35k training instances for stem reserve mobilization in wheat."
    hit = Hit(
        "h",
        "d1",
        1,
        0,
        200,
        "Stem reserve mobilization in wheat under drought\nA. Gupta\n"
        "Abstract We built 350k training instances for stem reserve mobilization.",
        0.9,
    )
    conflict = find_conflict(claim, select_evidence(claim, [hit], {"d1": "a.pdf"}))
    assert conflict.quote == "Abstract We built 350k training instances for stem reserve mobilization."


def test_a_line_with_a_number_and_a_chunks_last_line_can_be_the_quote():
    table = Hit("t", "d1", 3, 0, 100, "Table 2 Accuracy by model\nFAVA 81.3 Llama2 58.1\nChatGPT 60.2 GPT-4 70.4", 0.5)
    quote = select_evidence("FAVA reaches 81.3 accuracy.", [table], {"d1": "a.pdf"})[0].quote
    assert "FAVA 81.3" in quote  # a table row: a line without a full stop, but with numbers
    cut = Hit("c", "d1", 3, 0, 100, "Heat shortened grain filling.\nUnder drought the reserves of the stem were", 0.5)
    assert select_evidence("drought reserves stem", [cut], {"d1": "a.pdf"})[0].quote.startswith("Under drought")


def test_evidence_scores_are_the_same_in_every_process():
    """Words are sets, whose order changes with the hash seed: the scores must not (a plain sum differed in the last
    digit between processes, which could change a quote on an exact tie)."""
    code = """
from sourcecheck.evidence import select_evidence
from sourcecheck.library.search import Hit
claim = ("The mobilization of glacial meltwater increased sediment fluxes across twelve Patagonian fjords during "
         "austral summers, altering benthic foraminifera assemblages and phytoplankton blooms.")
texts = [
    "Glacial meltwater mobilization in Patagonian fjords raised sediment fluxes. Benthic foraminifera shifted.",
    "Phytoplankton blooms in austral summers followed meltwater pulses across fjords. Sediment cores were dated.",
    "Twelve fjords were sampled; foraminifera and phytoplankton counts differed between summers and winters.",
    "Sediment fluxes were measured with traps moored in the fjords during the austral summer of 2019.",
]
hits = [Hit(f"c{i}", "d", i + 1, 0, len(t), t, 0.5 + 0.01 * i) for i, t in enumerate(texts)]
print(repr([e.relevance for e in select_evidence(claim, hits, {"d": "a.pdf"}, k=4)]))
"""
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(8)
    }
    assert len(outputs) == 1, outputs
