"""quantities.py: the numbers of a text with their kind, unit and scale, as the conflict rules read them."""

from sourcecheck.conflict.quantities import find_numbers


def test_numbers_have_kinds_units_and_scales():
    found = {
        n.text: (n.value, n.kind, n.after)
        for n in find_numbers("In 2019, 76.2% of 1,280 people and 35k mice used GPT-4 for three epochs.")
    }
    assert found == {
        "2019": (2019.0, "year", "people"),
        "76.2%": (76.2, "percent", "people"),
        "1,280": (1280.0, "count", "people"),
        "35k": (35000.0, "count", "mice"),
        "three": (3.0, "count", "epochs"),
    }
