"""sourcecheck_eval/aligned.py: the evaluation's aligned prompts show only the source sentences that bear on the
claim."""

from sourcecheck.evidence import Evidence
from sourcecheck_eval.aligned import aligned


def ev(passage):
    return Evidence("d", "a.pdf", 1, passage.split(".")[0], passage, 0.5)


def test_aligned_covers_the_claim_with_few_sentences_and_keeps_a_pointing_back_sentence_whole():
    items = [
        ev("The cat sat on the mat. Dogs bark loudly at night. Birds sing in spring."),
        ev(
            "FAVA was trained on 35k instances. It beats ChatGPT by 20 points on fine-grained detection. "
            "The weather was fine."
        ),
    ]
    out = aligned("FAVA, trained on 35k instances, beats ChatGPT by 20 points.", items)
    text = " ".join(e.passage for e in out)
    assert "35k instances" in text and "It beats ChatGPT" in text
    assert "weather" not in text and "Birds" not in text
    assert [e.quote for e in out][-1] == items[-1].quote  # in the prompt order given, items unchanged


def test_aligned_never_leaves_the_prompt_without_sources():
    run_on = ev("word " * 200 + "end.")  # one 200-word "sentence": over the budget
    out = aligned("A claim about words.", [run_on])
    assert len(out) == 1 and 0 < len(out[0].passage.split()) <= 90
    assert aligned("A claim.", []) == []
