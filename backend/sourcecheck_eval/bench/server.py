"""scripts/bench --only server: `sourcecheck serve` started, a PDF uploaded, a first check; its memory; then one user
and several at once checking different sentences through the HTTP API (real model)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sourcecheck_eval.bench.data import ANSWER, ANSWER_QUERY, FAVE, WORK, fave_records, now
from sourcecheck_eval.bench.host import rss_mb


def bench_server(pdf: Path, r: dict[str, Any]) -> None:
    import httpx

    index = WORK / "server-index"
    shutil.rmtree(index, ignore_errors=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOURCECHECK_")}
    env.update(SOURCECHECK_INDEX_DIR=str(index), SOURCECHECK_TOKEN="bench", SOURCECHECK_PORT=str(port))
    api, auth = f"http://127.0.0.1:{port}/api/v1", {"Authorization": "Bearer bench"}
    t = now()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sourcecheck", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while True:
            if proc.poll() is not None or now() - t > 60:
                raise RuntimeError("the server did not start")
            try:
                if httpx.get(f"{api}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        r["server_ready_s"] = now() - t
        r["server_rss_started_mb"] = rss_mb(proc.pid)
        doc = httpx.post(f"{api}/documents", headers=auth, files={"file": (pdf.name, pdf.read_bytes())}, timeout=60)
        doc_id = doc.json()["documents"][0]["id"]
        # (the status request waits while a batch is embedded: the library holds its lock meanwhile)
        while httpx.get(f"{api}/documents/{doc_id}", headers=auth, timeout=60).json()["document"]["status"] != "ready":
            time.sleep(0.2)
        r["server_rss_ingested_mb"] = rss_mb(proc.pid)  # the embedding model is loaded now
        t = now()
        got = httpx.post(
            f"{api}/check",
            headers={**auth, "Accept": "application/json"},
            timeout=300,
            json={"text": " ".join(s for s, _ in ANSWER[:3])},
        ).json()
        r["server_first_check_s"] = now() - t  # loads the model and the embeddings: the first check pays
        assert len(got["verdicts"]) == 3, got
        time.sleep(2)
        r["server_rss_mb"] = rss_mb(proc.pid)
        r["users"] = bench_users(api, auth)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def user_claims(count: int, fave: str | Path = FAVE, query: str = ANSWER_QUERY) -> list[str]:
    """`count` different sentences from the abstracts of the query whose PDF the server holds, in order: checks
    made of different sentences read different evidence, as different users' checks do."""
    from sourcecheck.text.sentences import split_sentences

    sources = next(r for r in fave_records(fave) if r["id"] == query)["sources"]
    claims = [s.text for src in sources for s in split_sentences(src) if s.checkable and 40 < len(s.text) < 250]
    if len(claims) < count:
        raise RuntimeError(f"only {len(claims)} sentences to check, {count} needed")
    return claims[:count]


def stream_check(api: str, auth: Mapping[str, str], text: str, t0: float) -> dict[str, Any]:
    """Seconds from t0 to the first verdict, to the last first-verdict of a sentence, and to the summary."""
    import httpx

    first: float | None
    verdicts: float | None
    seen: set[int]
    first, verdicts, seen = None, None, set()
    with httpx.stream("POST", f"{api}/check", json={"text": text}, headers=auth, timeout=900) as resp:
        for line in resp.iter_lines():
            event = json.loads(line) if line else {}
            if event.get("type") == "verdict":
                first = first or now() - t0
                seen.add(event["index"])
                verdicts = now() - t0
            elif event.get("type") == "summary":
                return {"first_s": first, "verdicts_s": verdicts, "all_s": now() - t0, "sentences": len(seen)}
    raise RuntimeError("the stream ended without a summary")


def bench_users(
    api: str, auth: Mapping[str, str], users: int = 4, rounds: int = 2, per_check: int = 3
) -> dict[str, dict[str, Any]]:
    """One user, then `users` at once, each running `rounds` checks of `per_check` sentences in a row (real model).
    Throughput is verdicts per minute over the whole wall time; latencies are per check, from its request."""
    from concurrent.futures import ThreadPoolExecutor

    claims = user_claims((1 + users) * rounds * per_check)

    # every check its own sentences, none answered from the verdict cache; their candidate passages' sentences may
    # be embedded already (the library keeps them, SentenceVectors), more so for the later users, as in a day's use
    def text(check: int) -> str:
        return " ".join(claims[check * per_check : (check + 1) * per_check])

    out: dict[str, dict[str, Any]] = {}
    for n, first_check in ((1, 0), (users, rounds)):
        t = now()
        with ThreadPoolExecutor(n) as pool:
            done = pool.map(
                lambda i, first=first_check: [
                    stream_check(api, auth, text(first + i * rounds + k), now()) for k in range(rounds)
                ],
                range(n),
            )
            checks = [c for user in done for c in user]
        wall = now() - t
        out[str(n)] = {"wall_s": wall, "checks": checks, "per_min": 60 * sum(c["sentences"] for c in checks) / wall}
    return out
