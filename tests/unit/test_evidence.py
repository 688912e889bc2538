from sourcecheck.evidence import Evidence, SentenceSimilarity, aligned, select_evidence, shortlist
from sourcecheck.library import Hit

def ev(passage):
    return Evidence("d", "a.pdf", 1, passage.split(".")[0], passage, 0.5)

def test_aligned_covers_the_claim_with_few_sentences_and_keeps_a_pointing_back_sentence_whole():
    items = [ev("The cat sat on the mat. Dogs bark loudly at night. Birds sing in spring."),
             ev("FAVA was trained on 35k instances. It beats ChatGPT by 20 points on fine-grained detection. "
                "The weather was fine.")]
    out = aligned("FAVA, trained on 35k instances, beats ChatGPT by 20 points.", items)
    text = " ".join(e.passage for e in out)
    assert "35k instances" in text and "It beats ChatGPT" in text
    assert "weather" not in text and "Birds" not in text
    assert [e.quote for e in out][-1] == items[-1].quote  # most relevant last, items unchanged


def test_aligned_never_leaves_the_prompt_without_sources():
    run_on = ev("word " * 200 + "end.")  # one 200-word "sentence": over the budget
    out = aligned("A claim about words.", [run_on])
    assert len(out) == 1 and 0 < len(out[0].passage.split()) <= 90
    assert aligned("A claim.", []) == []


# A paper's first chunk: its title and authors run into the abstract, close to every claim about the paper
TITLE = Hit("t", "d1", 1, 0, 300, "Stem reserve mobilization in wheat under drought A. Gupta, K. Kaur Abstract The "
            "effect of water deficit on stem reserves was studied. Two cultivars were compared.", 0.80)
METHOD = Hit("m", "d1", 1, 300, 600, "Plants were grown in pots. Drought was imposed by withholding irrigation at "
             "95 days after sowing. Stem samples were taken weekly.", 0.55)
OTHER = Hit("o", "d2", 1, 0, 200, "Heat stress shortened grain filling. Yields fell by a third.", 0.50)


def test_a_chunk_counts_by_its_best_sentence_which_is_its_quote():
    claim = "Drought was imposed by withholding irrigation at 85 days after sowing."
    shown = list(reversed(select_evidence(claim, [TITLE, OTHER, METHOD], {"d1": "a.pdf", "d2": "b.pdf"}, k=3)))
    assert shown[0].quote == "Drought was imposed by withholding irrigation at 95 days after sowing."
    assert "Plants were grown in pots." in shown[0].passage  # the judge reads the neighbours too
    assert len(shown) == 3


def test_the_quote_takes_in_a_neighbour_that_carries_another_part_of_a_merged_claim():
    claim = "Plants grown in pots had drought imposed at 95 days after sowing, with stem samples taken weekly."
    quote = list(reversed(select_evidence(claim, [METHOD], {"d1": "a.pdf"})))[0].quote
    assert quote.startswith("Plants were grown in pots.") and quote.endswith("Stem samples were taken weekly.")
    single = list(reversed(select_evidence("Yields fell by a third.", [OTHER], {"d2": "b.pdf"})))[0].quote
    assert single == "Yields fell by a third."  # a neighbour that adds nothing of the claim stays out


def test_a_checks_sentences_are_embedded_once_each_when_a_claim_first_needs_them():
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return [[1.0, 0.0] if "drought" in t.lower() else [0.0, 1.0] for t in texts]

    similarity = SentenceSimilarity(embed)
    first = similarity("Drought hurt wheat.", [METHOD, OTHER])
    assert len(calls) == 1 and len(calls[0]) == 1 + 5  # the claim and five distinct sentences
    assert first["Drought was imposed by withholding irrigation at 95 days after sowing."] == 1.0
    assert first["Yields fell by a third."] == 0.0
    second = similarity("Yields fell.", [OTHER])
    assert calls[1] == ["Yields fell."]  # OTHER's sentences were embedded for the first claim
    assert second == {"Heat stress shortened grain filling.": 1.0, "Yields fell by a third.": 1.0}


def test_the_shortlist_keeps_the_chunks_that_match_the_claim_in_their_order():
    fillers = [Hit(f"f{i}", "d3", 2, 100 * i, 100 * i + 90, f"Unrelated note number {i} on soil.", 0.6)
               for i in range(12)]
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
        "Yields rose in the watered plots.")
    similarity = {"Yields fell in the dry plots.": 0.8, "Yields rose in the watered plots.": 0.1}
    assert select_evidence(claim, [hit], {"d1": "a.pdf"}, similarity=similarity)[0].quote == (
        "Yields fell in the dry plots.")
