from sourcecheck.library.chunking import chunk_page
from sourcecheck.text.sentences import sentence_texts


def words(chunk):
    return chunk[2].split()


def test_chunks_keep_positions_and_normalise_whitespace():
    page = "First  sentence here.\nSecond one follows.   " + " ".join(f"w{i}." for i in range(100))
    chunks = chunk_page(page, words_per_chunk=30)
    assert len(chunks) > 3
    for start, end, text in chunks:
        assert " ".join(page[start:end].split()) == " ".join(text.split())
    assert chunks[0][2].startswith("First sentence here. Second one follows.")
    assert chunks[-1][1] == len(page.rstrip())


def test_chunks_keep_each_block_on_a_line_of_its_own():
    """A title and its authors must not run on into the abstract's first sentence (one "sentence" that would
    match every claim about the paper): the blocks the PDF reader found stay apart in the chunk's text."""
    page = "A Study of Things\nAnn Fisher, Bo Lind\n\nAbstract\nWe found 35k items in the\ncorpus.\n \nMore text."
    ((start, end, text),) = chunk_page(page)
    assert text == "A Study of Things Ann Fisher, Bo Lind\nAbstract We found 35k items in the corpus.\nMore text."
    assert " ".join(page[start:end].split()) == " ".join(text.split())
    assert all(line == " ".join(line.split()) for line in text.split("\n"))
    assert sentence_texts(text)[-2:] == ["Abstract We found 35k items in the corpus.", "More text."]


def test_a_blank_page_has_no_chunks():
    assert chunk_page("") == [] and chunk_page("  \n\n \t ") == []


def test_a_short_page_is_one_chunk_of_all_its_words():
    assert chunk_page("  Otters eat\nurchins.  ", words_per_chunk=20) == [(2, 21, "Otters eat urchins.")]


def test_chunks_overlap_by_the_given_share_and_cover_every_word():
    page = " ".join(f"w{i}" for i in range(100))
    chunks = chunk_page(page, words_per_chunk=20, overlap=0.2)
    assert [(words(c)[0], words(c)[-1]) for c in chunks] == [
        ("w0", "w19"),
        ("w16", "w35"),
        ("w32", "w51"),
        ("w48", "w67"),
        ("w64", "w83"),
        ("w80", "w99"),
    ]
    apart = chunk_page(page, words_per_chunk=20, overlap=0)
    assert [w for c in apart for w in words(c)] == page.split()  # no overlap: each word once, in order


def test_a_full_overlap_still_moves_on_by_a_word():
    chunks = chunk_page(" ".join(f"w{i}" for i in range(30)), words_per_chunk=20, overlap=1.0)
    assert [words(c)[0] for c in chunks] == [f"w{i}" for i in range(11)]


def test_a_chunk_ends_at_a_sentence_end_in_its_last_quarter_only():
    def ends(marked, suffix="."):
        page = " ".join(f"w{i}{suffix}" if i == marked else f"w{i}" for i in range(40))
        return [words(c)[-1] for c in chunk_page(page, words_per_chunk=20)]

    assert ends(16)[0] == "w16."  # the 17th of 20 words: in the last quarter
    assert ends(17, '."')[0] == 'w17."'  # a closing quote stays with its sentence
    assert ends(15)[0] == "w19"  # the 16th: too early, the chunk is cut at 20 words
    assert ends(18, ".5")[0] == "w19"  # a decimal point is no sentence end


def test_a_chunk_starts_at_the_start_of_the_sentence_its_overlap_begins_in():
    # a chunk that began mid-sentence showed a quote cut at its front ("only or primarily LC scores following…")
    page = " ".join(f"w{i}." if i in (13, 30) else f"w{i}" for i in range(60))
    starts = [words(c)[0] for c in chunk_page(page, words_per_chunk=20, overlap=0.2)]
    assert starts[:2] == ["w0", "w14"]  # the overlap would start at w16; its sentence starts at w14
    far = " ".join(f"w{i}." if i == 5 else f"w{i}" for i in range(60))
    assert [words(c)[0] for c in chunk_page(far, words_per_chunk=20)][1] == "w16"  # a sentence start too far back
