"""The second-read measure's report: AUROC of each way of reading within the band, per kind, from its rows."""

import json

from sourcecheck_eval.second_reads import report


def test_the_report_ranks_each_way_of_reading_per_kind(tmp_path):
    rows = []
    for i in range(40):
        y = i % 2
        rows.append(
            {
                "key": [("chatpdfs-dev", "fullpapers-dev")[i % 4 // 2], f"q{i % 8}", i],
                "y": y,
                "p_raw": 0.4 + 0.01 * (i % 3),  # no signal
                "alone": [0.3 + 0.4 * y],  # all of it
                "aligned": 0.7 - 0.4 * y,  # all of it, the wrong way round
                "p_parts_aligned": [0.5, 0.2 + 0.5 * y],
            }
        )
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = report(path, resamples=50).splitlines()
    assert [line.split(" (")[0] for line in lines] == ["chatpdfs", "fullpapers"]
    for line in lines:
        assert "(20 sentences, 10 errors)" in line
        assert "each passage alone, best (shipped) 100.0" in line and "aligned sentences 0.0" in line
        assert "atomic claims on their aligned sentences, lowest 100.0" in line


def test_the_aligned_read_shows_the_best_sentence_nearest_the_claim_and_points_at_nothing_else():
    """The prompt builder takes evidence most relevant first; given the prompt's order it pointed the judge at the
    least relevant excerpt ("(The excerpt most relevant to the claim is [1].)") in 92 of 112 measured sentences."""
    from sourcecheck.evidence import Evidence
    from sourcecheck.judging.judge import Judge
    from sourcecheck.llm.fake import FakeModel
    from sourcecheck_eval.second_reads import aligned_read

    best = "Sea otters were counted from boats: 412 otters in 2021."
    other = "The survey boats left the harbour at dawn. Otters also rest on kelp."
    evidence = [Evidence("d", "a.pdf", 2, best, best, 0.9), Evidence("d", "a.pdf", 5, other, other, 0.2)]
    model = FakeModel()
    aligned_read(Judge(model), "Surveyors counted 412 otters from boats in 2021.", evidence)
    (prompt,) = [m[-1]["content"] for kind, m in model.history if kind == "choose"]
    excerpts = [line for line in prompt.splitlines() if line.startswith("[")]
    assert "412 otters" in excerpts[-1]  # nearest the claim
    pointer = [line for line in prompt.splitlines() if "most relevant to the claim" in line]
    assert not pointer or f"[{len(excerpts)}]" in pointer[0]
