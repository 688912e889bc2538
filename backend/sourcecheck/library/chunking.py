"""Page text → overlapping chunks that remember their page and character positions."""

import re

from sourcecheck.text.sentences import WORD_ENDS_SENTENCE

_WORD = re.compile(r"\S+")
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


def chunk_page(text: str, words_per_chunk: int = 120, overlap: float = 0.2) -> list[tuple[int, int, str]]:
    """Split one page into chunks; each is (start, end, text) with whitespace-normalised text.

    A chunk ends at a sentence end in its last quarter when there is one, and the next starts at the start of the
    sentence its overlap begins in when that is less than a quarter chunk further back, so quotes stay whole. The
    page's text blocks (paragraphs, a title, an author line) stay on lines of their own, so that a title and its
    authors do not run on into the first sentence of the abstract as one "sentence" that matches every claim.
    """
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    chunks, i = [], 0
    while i < len(words):
        stop = min(i + words_per_chunk, len(words))
        if stop < len(words):
            for j in range(stop - 1, i + (3 * words_per_chunk) // 4, -1):
                if WORD_ENDS_SENTENCE.search(text[words[j][0] : words[j][1]]):
                    stop = j + 1
                    break
        start, end = words[i][0], words[stop - 1][1]
        chunks.append((start, end, _blocks(text[start:end])))
        if stop == len(words):
            break
        back = stop - int((stop - i) * overlap)
        for j in range(back, max(i + 1, back - words_per_chunk // 4), -1) if back < stop else ():
            if WORD_ENDS_SENTENCE.search(text[words[j - 1][0] : words[j - 1][1]]):
                back = j
                break
        i = max(i + 1, back)
    return chunks


def _blocks(text: str) -> str:
    """Each block (text between blank lines) on one line, its whitespace collapsed to single spaces."""
    return "\n".join(filter(None, (" ".join(block.split()) for block in _BLANK_LINE.split(text))))
