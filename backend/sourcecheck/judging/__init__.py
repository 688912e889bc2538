"""Judging a sentence: the prompts, the model's answers read, the calibrated scale, the verdict and the card."""
