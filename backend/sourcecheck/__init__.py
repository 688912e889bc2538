"""sourcecheck: check LLM-written text against your own PDFs, sentence by sentence, offline."""

__version__ = "0.2.0"
