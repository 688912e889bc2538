#!/usr/bin/env python3
"""Validate hand-labelled chat answers (tests/data/chatpdfs/*.jsonl).

Usage: python3 tests/data/chatpdfs/validate.py FILE.jsonl [FILE2.jsonl ...]

Checks (any failure -> exit code 1):
  * uniform schema: id "chat-q<N>", dataset "chatpdfs-dev" (dev.jsonl, for tuning) or "chatpdfs-test"
    (test.jsonl, held out), task "chat_answer_pdfs",
    meta.fave_id == "fave-q<N>", no fave-q3, ids unique across all files given;
  * sources / meta.papers / meta.query identical to the FAVE record (if the FAVE file is present: $FAVE_DEV, else
    $SOURCECHECK_BENCHMARKS/fave/dev.jsonl; the FAVE paper set of
    https://github.com/elicit/fave-dataset at commit 03f3f26, one record "fave-q<N>" per query; not fetched by the
    package, and the check is skipped with a note without it);
  * one response label first; its label and error_types agree with the sentence labels;
  * sentence labels: index 0..n-1, text is an exact substring of text, in text order
    (non-overlapping), ends with a period, raw_label in true + the six FAVA types,
    label/error_types consistent with raw_label;
  * source_index is a valid index (required for true sentences; null allowed only for
    invented/subjective/unverifiable), source_quote is an exact substring of
    sources[source_index] and is null iff source_index is null;
  * entity/relation/contradictory have claim_value (exact substring of the sentence) and
    source_value (exact substring of source_quote); others have them null or absent.
Prints counts: records, sentences, true, errors per type.
Standard library only.
"""

import json
import os
import re
import sys
from collections import Counter

TYPES = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
NEEDS_VALUES = ("entity", "relation", "contradictory")
MAY_BE_UNSOURCED = ("invented", "subjective", "unverifiable")
HELD_OUT = {"fave-q3"}
BENCHMARKS = os.environ.get("SOURCECHECK_BENCHMARKS", "")  # a copy of the benchmarks folder (docs/development.md)
FAVE_CANDIDATES = [os.environ.get("FAVE_DEV", ""), os.path.join(BENCHMARKS, "fave", "dev.jsonl") if BENCHMARKS else ""]


def load_fave(wanted):
    """Load only the FAVE records we need (never the held-out ones)."""
    for path in FAVE_CANDIDATES:
        if path and os.path.exists(path):
            out = {}
            with open(path, encoding="utf-8") as f:
                for line in f:
                    rid = json.loads(line).get("id") if '"id"' in line else None
                    if rid in wanted and rid not in HELD_OUT:
                        out[rid] = json.loads(line)
            return out, path
    return None, None


def check_record(rec, where, errs, fave):
    def err(msg):
        errs.append(f"{where}: {msg}")

    for key in ("id", "dataset", "task", "sources", "text", "labels", "spans", "meta"):
        if key not in rec:
            err(f"missing key {key!r}")
            return None
    m = re.fullmatch(r"chat-q(\d+)", str(rec["id"]))
    if not m:
        err(f"bad id {rec['id']!r}")
        return None
    n = int(m.group(1))
    fave_id = rec["meta"].get("fave_id")
    if fave_id != f"fave-q{n}":
        err(f"meta.fave_id {fave_id!r} does not match id {rec['id']!r}")
    if fave_id in HELD_OUT or n == 3:
        err("uses held-out query fave-q3")
    if rec["dataset"] not in ("chatpdfs-dev", "chatpdfs-test"):
        err(f"dataset {rec['dataset']!r}")
    if rec["task"] != "chat_answer_pdfs":
        err(f"task {rec['task']!r}")
    if rec["spans"] != []:
        err("spans should be []")
    for key in ("query", "papers"):
        if key not in rec["meta"]:
            err(f"meta.{key} missing")
    sources, text = rec["sources"], rec["text"]
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources) or not sources:
        err("sources must be a non-empty list of strings")
        return None
    if fave is not None:
        fr = fave.get(fave_id)
        if fr is None:
            err(f"{fave_id} not found in FAVE dev file")
        else:
            if fr["sources"] != sources:
                err("sources differ from the FAVE record")
            if fr["meta"].get("papers") != rec["meta"].get("papers"):
                err("meta.papers differ from the FAVE record")
            if fr["meta"].get("query") != rec["meta"].get("query"):
                err("meta.query differs from the FAVE record")

    labels = rec["labels"]
    if not labels or labels[0].get("level") != "response":
        err("first label must be the response label")
        return None
    resp = labels[0]
    sents = labels[1:]
    if any(s.get("level") != "sentence" for s in sents):
        err("only one response label followed by sentence labels expected")
    pos = 0
    types_seen = []
    stats = Counter()
    for k, lab in enumerate(sents):
        w = f"sentence {k}"
        if lab.get("index") != k:
            err(f"{w}: index {lab.get('index')!r}, expected {k}")
        st = lab.get("text")
        if not isinstance(st, str) or not st:
            err(f"{w}: empty text")
            continue
        found = text.find(st, pos)
        if found < 0:
            if st in text:
                err(f"{w}: text out of order / overlapping: {st[:60]!r}")
            else:
                err(f"{w}: text is not a substring of text: {st[:60]!r}")
        else:
            pos = found + len(st)
        if not st.rstrip("*_ ").endswith("."):
            err(f"{w}: does not end with a period: {st[-30:]!r}")
        raw = lab.get("raw_label")
        if raw == "true":
            if lab.get("label") != "supported":
                err(f"{w}: raw_label true but label {lab.get('label')!r}")
            if lab.get("error_types") != []:
                err(f"{w}: true sentence with error_types {lab.get('error_types')!r}")
            stats["true"] += 1
        elif raw in TYPES:
            if lab.get("label") != "unsupported":
                err(f"{w}: raw_label {raw} but label {lab.get('label')!r}")
            if lab.get("error_types") != [raw]:
                err(f"{w}: error_types {lab.get('error_types')!r} should be [{raw!r}]")
            stats[raw] += 1
            types_seen.append(raw)
        else:
            err(f"{w}: raw_label {raw!r} not in true + {TYPES}")
            continue
        si = lab.get("source_index")
        sq = lab.get("source_quote")
        if si is None:
            if raw not in MAY_BE_UNSOURCED:
                err(f"{w}: source_index is null for a {raw} sentence")
            if sq is not None:
                err(f"{w}: source_quote given without source_index")
        else:
            if not isinstance(si, int) or isinstance(si, bool) or not 0 <= si < len(sources):
                err(f"{w}: bad source_index {si!r}")
            elif not isinstance(sq, str) or not sq.strip():
                err(f"{w}: source_quote missing")
            elif sq not in sources[si]:
                err(f"{w}: source_quote not an exact substring of sources[{si}]: {sq[:60]!r}")
        cv, sv = lab.get("claim_value"), lab.get("source_value")
        if raw in NEEDS_VALUES:
            if not cv or not sv:
                err(f"{w}: {raw} needs claim_value and source_value")
        elif cv is not None or sv is not None:
            err(f"{w}: claim_value/source_value should be null for {raw}")
        if cv is not None and cv not in st:
            err(f"{w}: claim_value {cv!r} not in sentence")
        if sv is not None and (not isinstance(sq, str) or sv not in sq):
            err(f"{w}: source_value {sv!r} not in source_quote")
        if not lab.get("note"):
            err(f"{w}: note missing")
    expect_types = sorted(set(types_seen))
    if sorted(resp.get("error_types") or []) != expect_types:
        err(f"response error_types {resp.get('error_types')!r} != {expect_types!r}")
    expect_label = "unsupported" if types_seen else "supported"
    if resp.get("label") != expect_label:
        err(f"response label {resp.get('label')!r}, expected {expect_label!r}")
    stats["sentences"] = len(sents)
    return stats


def main(paths):
    if not paths:
        print(__doc__)
        return 2
    recs = []
    errs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    recs.append((f"{os.path.basename(path)}:{ln}", json.loads(line)))
                except json.JSONDecodeError as e:
                    errs.append(f"{path}:{ln}: invalid JSON ({e})")
    wanted = {r.get("meta", {}).get("fave_id") for _, r in recs}
    fave, fave_path = load_fave(wanted - HELD_OUT)
    if fave is None:
        print(
            "note: FAVE dev file not found ($FAVE_DEV, or $SOURCECHECK_BENCHMARKS/fave/dev.jsonl);"
            " sources/meta not compared with it"
        )
    ids = Counter(r.get("id") for _, r in recs)
    for rid, c in ids.items():
        if c > 1:
            errs.append(f"duplicate id {rid!r} ({c} times)")
    total = Counter()
    per_record = []
    for where, rec in recs:
        st = check_record(rec, f"{where} {rec.get('id')}", errs, fave)
        if st:
            total += st
            per_record.append((rec.get("id"), st))
    for rid, st in per_record:
        e = st["sentences"] - st["true"]
        kinds = ", ".join(f"{t}={st[t]}" for t in TYPES if st[t])
        print(f"  {rid:<10} sentences={st['sentences']:>2} true={st['true']:>2} errors={e:>2}  ({kinds})")
    n_err = sum(total[t] for t in TYPES)
    print(f"records: {len(recs)}  sentences: {total['sentences']}  true: {total['true']}  errors: {n_err}")
    print("errors per type: " + ", ".join(f"{t}={total[t]}" for t in TYPES))
    if errs:
        print(f"\nFAILED: {len(errs)} problem(s)")
        for e in errs:
            print("  - " + e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
