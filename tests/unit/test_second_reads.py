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
