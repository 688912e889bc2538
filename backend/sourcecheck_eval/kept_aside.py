"""Records kept aside for held-out checks of the product: measured, never fitted, tuned or chosen on.

FAVE's query fave-q3 (the skin-cancer query: that set's own record id; the chat answers built from FAVE's papers
never use it, tests/unit/test_chatpdfs.py) and every answer about a PDF of the Debian packages below (the full-paper
set's answers about r-cran-sandwich sit in its development half, so its figures are measured on them, but no fit,
threshold or shipped calibration sentence comes from them). tests/unit/test_kept_aside.py checks RECORDS against the
sets' own lists of PDFs.
"""

PACKAGES = frozenset({"r-cran-lme4", "r-cran-zoo", "r-cran-survival", "r-cran-sandwich", "r-cran-lmtest"})
RECORDS = frozenset({"fave-q3", "paper-q1", "paper-q2", "paper-q3", "paper-q4", "paper-q5", "paper-q6"})


def kept_aside(record: str) -> bool:
    return record in RECORDS
