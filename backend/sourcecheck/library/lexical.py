"""Lexical search: SQLite FTS5's bm25() over the chunks' content words, in a file beside the Chroma store.

Persisted and updated in place, so a process's first search reads nothing up front (a 100k-chunk library
took 14 s to load into the in-memory index this replaced). The words are the ones words.content_words keeps;
"3.5" and "35,000" stay one token (tokenchars), as they are for the rest of the pipeline.
"""

import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from sourcecheck.text.words import content_words

SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS chunk(rowid INTEGER PRIMARY KEY, chunk_id TEXT UNIQUE NOT NULL,
                                 document_id TEXT NOT NULL, words TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunk_document ON chunk(document_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_words USING fts5(words, document_id UNINDEXED, content='chunk',
                                                          content_rowid='rowid', tokenize="unicode61 tokenchars '.,'");
CREATE TRIGGER IF NOT EXISTS chunk_added AFTER INSERT ON chunk BEGIN
  INSERT INTO chunk_words(rowid, words, document_id) VALUES (new.rowid, new.words, new.document_id);
END;
CREATE TRIGGER IF NOT EXISTS chunk_removed AFTER DELETE ON chunk BEGIN
  INSERT INTO chunk_words(chunk_words, rowid, words, document_id)
    VALUES ('delete', old.rowid, old.words, old.document_id);
END;
"""


class LexicalIndex:
    """Chunk ids and their content words, ranked by FTS5's Okapi BM25 (k1 1.2, b 0.75).

    Every change is one transaction, so a crash leaves the index as it was before or after it; the library
    reconciles it with Chroma by document (counts()) when it opens. Not thread-safe: the library locks.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False, isolation_level=None)
        self._db.executescript(SCHEMA)
        self._counts: Counter[str] | None = (
            None  # counts(), kept until the next change (a GROUP BY over 100k chunks takes 20 ms)
        )

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM chunk").fetchone()[0]

    def add(self, ids: Sequence[str], texts: Sequence[str], document_ids: Sequence[str]) -> None:
        """Index chunks; a chunk id indexed before is replaced."""
        rows = [(cid, doc, " ".join(content_words(text))) for cid, text, doc in zip(ids, texts, document_ids)]
        self._counts = None
        with self._transaction() as db:
            db.executemany("DELETE FROM chunk WHERE chunk_id = ?", [(r[0],) for r in rows])
            db.executemany("INSERT INTO chunk(chunk_id, document_id, words) VALUES (?, ?, ?)", rows)

    def remove(self, ids: Sequence[str]) -> None:
        self._counts = None
        with self._transaction() as db:
            db.executemany("DELETE FROM chunk WHERE chunk_id = ?", [(i,) for i in ids])

    def remove_document(self, document_id: str) -> None:
        self._counts = None
        with self._transaction() as db:
            db.execute("DELETE FROM chunk WHERE document_id = ?", (document_id,))

    def counts(self) -> Counter[str]:
        """{document id: chunks indexed}."""
        if self._counts is None:
            self._counts = Counter(
                dict(self._db.execute("SELECT document_id, count(*) FROM chunk GROUP BY document_id"))
            )
        return Counter(self._counts)

    def top(self, query: str, n: int, document_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """[(chunk id, score)] of the n best chunks for the query, best first (only those of document_ids if
        given); a higher score is a better match."""
        words = sorted(set(content_words(query)))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)  # quoted: a word is never read as an FTS5 operator
        where, args = "", [match]
        if document_ids:
            docs = sorted(set(document_ids))
            where = f" AND document_id IN ({','.join('?' * len(docs))})"
            args += docs
        # Ranked inside FTS5 first: joining every match to its chunk id before the LIMIT costs 10x more.
        rows = self._db.execute(
            "SELECT c.chunk_id, t.score FROM (SELECT rowid, rank AS score FROM chunk_words"
            f" WHERE chunk_words MATCH ?{where} ORDER BY rank LIMIT ?) t JOIN chunk c ON c.rowid = t.rowid"
            " ORDER BY t.score, t.rowid",
            [*args, n],
        ).fetchall()
        return [(cid, -score) for cid, score in rows]  # FTS5's bm25() is negative: lower is better

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN … COMMIT, or ROLLBACK on an exception (sqlite3's own context manager opens no transaction in
        autocommit mode)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
