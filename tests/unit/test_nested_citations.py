"""A numbered citation nested in brackets is one marker (issue 37): stripped whole, so that nothing is left to form a
new marker, and its numbers are never values to check. (Their speed: tests/unit/test_text_speed.py.)"""

import pytest
from sourcecheck.text.citations import citation_spans, strip_citations
from sourcecheck.text.numerals import numbers


@pytest.mark.parametrize(
    "sentence, stripped, values",
    [
        ("The span is 1,280 m [1[1]] long.", "The span is 1,280 m long.", {"1280"}),
        ("It opened in 1937 [[2]].", "It opened in 1937.", {"1937"}),
        ("It has 2 towers [1[2[3]]], both orange.", "It has 2 towers, both orange.", {"2"}),
        ("The span is 1,280 m [1][2] long [3, 4].", "The span is 1,280 m long.", {"1280"}),
        # an outer bracket that is not closed is text, as before
        ("It has 2 towers [1[2] and 3 cables.", "It has 2 towers [1 and 3 cables.", {"1", "2", "3"}),
    ],
)
def test_a_nested_numbered_citation_is_stripped_whole(sentence, stripped, values):
    assert strip_citations(sentence) == stripped
    assert citation_spans(stripped) == []
    assert numbers(sentence) == numbers(stripped) == values
