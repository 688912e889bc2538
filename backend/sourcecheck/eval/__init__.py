"""Measuring sourcecheck: the eval harness, its metrics, fitting calibration.json, and the speed bench.

Tooling only: the runtime (what `sourcecheck serve` imports) never imports this package.
"""
