"""Text leaves: sentences, words, numbers and citation markers (imported by every stage, importing none)."""
