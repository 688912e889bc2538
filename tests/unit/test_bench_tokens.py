"""scripts/bench's token count: every prompt token evaluated is put in its prompt's part (instructions, evidence,
claim), and a token read again after the same prefix is counted as re-read."""

from sourcecheck_eval.bench.check import TokenCount


class Letters:
    """A tokenizer of one token per character."""

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = True) -> list[int]:
        return list(text)


def test_a_prompt_is_split_at_its_excerpts_and_its_claim():
    prompt = "sys|Source excerpts:\n[1] a b\n\nClaim: x. Is it supported?"
    kind, a, b = TokenCount.parts_of(prompt, Letters())
    assert (kind, prompt[:a], prompt[a:b]) == ("verify", "sys|Source excerpts:\n", "[1] a b")
    assert TokenCount.parts_of("Source excerpts:\ne\n\nClaim: c\nReply in exactly three lines", Letters())[0] == (
        "critique"
    )
    assert TokenCount.parts_of("no excerpts here", Letters()) == ("verify", 0, 0)


def test_tokens_are_counted_by_part_and_a_second_read_of_the_same_prefix_is_a_reread():
    counts = TokenCount(object())  # no llama.cpp: nothing is wrapped, add() is fed by hand
    counts._bounds = ("verify", 3, 8)  # 3 tokens of instructions, 5 of evidence, then the claim
    first = list(range(10))
    counts.add(first, 10, 1.0)  # the whole prompt read
    assert counts["parts"] == {"verify instructions": 3, "verify evidence": 5, "verify claim": 2}
    assert counts["prompt"] == 10 and counts["reread"] == 0
    assert abs(sum(counts["seconds"].values()) - 1.0) < 1e-9
    counts.add(first[:8] + [50, 51], 2, 0.5)  # a second claim after the cached prefix: only its own tokens
    assert counts["parts"]["verify claim"] == 4 and counts["reread"] == 0
    counts.add(first, 10, 1.0)  # the first prompt again from scratch (a cache miss): all of it read again
    assert counts["reread"] == 10 and counts["prompt"] == 22
    counts.add(first, 1, 0.1)  # the same prompt once more: only its last token is evaluated, and it is a prompt's
    assert counts["prompt"] == 23 and counts["reread"] == 11 and counts["written"] == 0
    counts.add(first + [7], 1, 0.1, prompt=False)  # one generated token
    assert counts["written"] == 1 and counts["prompt"] == 23
    counts.reset()
    assert counts["prompt"] == counts["reread"] == 0 and counts["parts"] == {}
