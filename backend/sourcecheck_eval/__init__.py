"""Measuring sourcecheck: the eval harness (`sourcecheck eval`, a command this package adds to the CLI), its
metrics, fitting calibration.json, the public sets, and the speed bench (scripts/bench).

It depends on the product (sourcecheck), never the reverse: no module of sourcecheck imports this package
(tests/unit/test_imports.py).
"""
