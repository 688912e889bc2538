// The time a check has left, from the measured pace of this machine. A check scores every sentence first (a verdict
// event each; a flagged one comes with "final": false, one the judge is not sure of with "rereading": true), then
// reads the unsure ones again (the same index again: final, or flagged and "final": false), then writes a critique for
// each flagged sentence (the same index again, "final": true). Each phase has its own time per sentence: this check's own, an exponential moving
// average of the gaps between its events, or before it has any, the one kept from earlier checks (storage "pace",
// itself an average over checks, kept as a free machine's: each check's pace divided by how much slower the machine
// was then, and multiplied by how much slower it is now: the sentences event's "machine", when the server can tell;
// slowdown() below), or on a first-ever check a default. Pure functions: start(kept) -> p,
// observe(p, event, now) -> p, estimate(p, now), basis(p), remember(kept, p) -> what to keep.
(function (root) {
  "use strict";

  const ALPHA = 0.3;          // weight of a new gap in this check's pace
  const ACROSS = 0.5;         // weight of a finished check's pace in the kept one
  const DEFAULT_VERDICT_MS = 5000;  // a first-ever check's guess: 10 verdicts took 48.6 s (docs/performance.md)
  const STRETCH = 1.2;        // a step that has run past its expected time is expected to take this much more than so far
  const CRITIQUE_RATIO = 2;   // a critique ≈ 2 verdicts when none was ever measured (docs/performance.md: 10 verdicts
                              // 48.6 s, their 3 critiques 27 s more)
  const SHARE = 0.3;          // share of sentences flagged, before any check has said
  const REREAD_RATIO = 1;     // a second read ≈ 1 verdict when none was ever measured (three short prompts)
  const REREAD_SHARE = 0.3;   // share of sentences read again, before any check has said (a judge that rereads)
  const REREAD_FLAGGED = 0.3; // share of those flagged by their second read, before any check has said
  const PRIOR_WEIGHT = 4;     // the kept share counts as this many sentences against this check's own
  const MAX_MS = 10 * 60 * 1000;  // a gap longer than this is not a pace (a sleeping laptop, a lost clock): ignored
  // What other work costs the judge: with another llama.cpp process keeping 1.9 of 2 cores busy, the bench's check
  // took 1.56× as long (docs/performance.md, `scripts/bench --only estimate`): 1 + 0.6 × 1.9 / 2 ≈ 1.57.
  const BUSY_COST = 0.6;

  const num = (x) => (typeof x === "number" && isFinite(x) && x >= 0 ? x : null);
  const ms = (x) => (num(x) !== null && x <= MAX_MS ? x : null);  // a time per sentence, or null when not a sane one
  const ema = (prev, x, a) => (prev === null ? x : prev + a * (x - prev));
  /** prev with the gap now - since averaged in; unchanged when there is nothing to time from or the gap is not sane. */
  const gap = (prev, now, since, a) => {
    const x = since === null || since === undefined ? null : ms(now - since);
    return x === null ? prev : ema(prev, x, a);
  };

  /** A new check's pace; kept: {verdictMs, critiqueMs, flaggedShare, rereadMs, rereadShare} from earlier checks, or
   * nothing. */
  function start(kept) {
    const k = kept || {};
    return {
      // A kept time out of bounds (kept by an older version that could store one) counts as never measured.
      kept: { verdictMs: ms(k.verdictMs), critiqueMs: ms(k.critiqueMs), flaggedShare: num(k.flaggedShare),
        rereadMs: ms(k.rereadMs), rereadShare: num(k.rereadShare) },
      slow: 1,  // how much slower than a free machine this one is now, from the sentences event (1: not known)
      total: 0, verdicts: 0, flagged: 0, critiques: 0, verdictMs: null, critiqueMs: null,
      rereading: false, rereads: 0, reread: 0, rereadFlagged: 0, rereadMs: null, lastRereadAt: null,
      lastVerdictAt: null, lastCritiqueAt: null, lastAt: null, seen: {}, done: false,
    };
  }

  /** How much longer the judge takes beside other work: 1 + BUSY_COST × others_busy / cores; 1 when the server did
   * not say (docs/api.md, the sentences event's "machine"). */
  function slowdown(machine) {
    const cores = machine && num(machine.cores), busy = machine && num(machine.others_busy);
    return cores > 0 && busy !== null ? 1 + BUSY_COST * Math.min(busy, cores) / cores : 1;
  }

  /** The pace after one check event at time now (ms). */
  function observe(p, e, now) {
    const q = Object.assign({}, p, { seen: Object.assign({}, p.seen) });
    if (e.type === "sentences") {
      q.total = e.sentences.filter((s) => s.checkable !== false).length;
      q.rereading = !!(e.judge && e.judge.rereads);  // this judge reads unsure sentences a second time
      q.slow = slowdown(e.machine);
    } else if (e.type === "verdict" && !q.seen[e.index] && e.rereading) {
      // A sentence scored, to be read again: neither flagged nor settled yet.
      if (q.verdicts > 0) q.verdictMs = gap(q.verdictMs, now, q.lastVerdictAt, ALPHA);
      q.verdicts += 1;
      q.rereads += 1;
      q.lastVerdictAt = now;
      q.seen[e.index] = "rereading";
    } else if (e.type === "verdict" && q.seen[e.index] === "rereading") {
      // Read again: timed from the read before, the first from the last verdict (second reads start after it).
      q.rereadMs = gap(q.rereadMs, now, q.lastRereadAt ?? q.lastVerdictAt, ALPHA);
      q.reread += 1;
      q.lastRereadAt = now;
      // Flagged by it: a critique to wait for (counted apart from the first read's flagged share).
      const waiting = e.label !== "supported" && e.final === false;
      if (waiting) { q.flagged += 1; q.rereadFlagged += 1; }
      q.seen[e.index] = waiting ? "waiting" : "final";
    } else if (e.type === "verdict" && !q.seen[e.index]) {
      // A sentence scored. The first verdict also waited for the search and the model to load: not a pace.
      if (q.verdicts > 0) q.verdictMs = gap(q.verdictMs, now, q.lastVerdictAt, ALPHA);
      q.verdicts += 1;
      q.lastVerdictAt = now;
      const flagged = e.label !== "supported";
      if (flagged) q.flagged += 1;
      if (flagged && e.final !== false) q.critiques += 1;  // came with its critique: none to wait for
      q.seen[e.index] = flagged && e.final === false ? "waiting" : "final";
    } else if (e.type === "verdict" && q.seen[e.index] === "waiting" && e.final !== false) {
      // A critique written: timed from the one before, the first from the last verdict (critiques start after it).
      // Not from q.critiques: a flagged verdict that came already final counts as a critique but was never timed.
      q.critiqueMs = gap(q.critiqueMs, now, q.lastCritiqueAt ?? q.lastRereadAt ?? q.lastVerdictAt, ALPHA);
      q.critiques += 1;
      q.lastCritiqueAt = now;
      q.seen[e.index] = "final";
    } else if (e.type === "summary" || e.type === "error") {
      q.done = true;
    }
    q.lastAt = now;
    return q;
  }

  /** Time per verdict and per critique now: this check's, else the kept ones (critiques scaled by how much faster or
   * slower today's verdicts are than the kept ones), else a critique as CRITIQUE_RATIO verdicts; a first-ever check's
   * verdicts take DEFAULT_VERDICT_MS until two have come. */
  function paces(p) {
    const slow = p.slow || 1;
    const scaled = (x) => (x === null ? null : x * slow);  // a free machine's pace, as slow as this one is now
    const k = {
      verdictMs: scaled(p.kept.verdictMs), critiqueMs: scaled(p.kept.critiqueMs), rereadMs: scaled(p.kept.rereadMs),
    };
    const verdictMs = p.verdictMs ?? k.verdictMs ?? DEFAULT_VERDICT_MS * slow;
    let critiqueMs = p.critiqueMs;
    if (critiqueMs === null && k.critiqueMs !== null) {
      critiqueMs = k.critiqueMs * (p.verdictMs !== null && k.verdictMs ? p.verdictMs / k.verdictMs : 1);
    }
    if (critiqueMs === null) critiqueMs = verdictMs * CRITIQUE_RATIO;
    let rereadMs = p.rereadMs;
    if (rereadMs === null && k.rereadMs !== null) {
      rereadMs = k.rereadMs * (p.verdictMs !== null && k.verdictMs ? p.verdictMs / k.verdictMs : 1);
    }
    if (rereadMs === null) rereadMs = verdictMs * REREAD_RATIO;
    return { verdictMs, critiqueMs, rereadMs };
  }

  /** Where the time per verdict comes from: "check" (this one's), "kept" (earlier checks'), "default" (a guess). */
  function basis(p) {
    return p.verdictMs !== null ? "check" : p.kept.verdictMs !== null ? "kept" : "default";
  }

  /** Milliseconds left (rounded), or null before the sentences are known or once the check is over. */
  function estimate(p, now) {
    if (p.done || !p.total) return null;
    let { verdictMs, critiqueMs, rereadMs } = paces(p);
    const left = Math.max(0, p.total - p.verdicts);
    // Sentences still to score will be flagged (and read again) as often as those scored, the kept shares weighing in
    // early on; those read again flagged as often as those already read again.
    const prior = p.kept.flaggedShare !== null ? p.kept.flaggedShare : SHARE;
    const share = (p.flagged - p.rereadFlagged + prior * PRIOR_WEIGHT) / (p.verdicts + PRIOR_WEIGHT);
    const rereadPrior = !p.rereading ? 0 : p.kept.rereadShare !== null ? p.kept.rereadShare : REREAD_SHARE;
    const rereadShare = (p.rereads + rereadPrior * PRIOR_WEIGHT) / (p.verdicts + PRIOR_WEIGHT);
    const rereadsLeft = Math.max(0, p.rereads - p.reread) + left * rereadShare;
    const flaggedAfter = (p.rereadFlagged + REREAD_FLAGGED * PRIOR_WEIGHT) / (p.reread + PRIOR_WEIGHT);
    const critiquesLeft = Math.max(0, p.flagged - p.critiques) + left * share + rereadsLeft * flaggedAfter;
    // The step under way (the next verdict, else the next second read, else the next critique) has been worked on
    // since the last event. Once it has run past its expected time, it takes longer than it has so far, and the others
    // of its kind likely longer too: as long, while their time is a guess (a critique guessed from quick verdicts can
    // take ten times as long), or averaged in once this check has measured it. Not after the first verdict, which
    // waits for the search and the model to load.
    const phase = left > 0 ? "verdict" : rereadsLeft > 0 ? "reread" : "critique";
    const since = Math.max(0, now - p.lastAt);
    const expected = { verdict: verdictMs, reread: rereadMs, critique: critiqueMs }[phase];
    const stretched = Math.max(expected, since * STRETCH);
    if (since > expected && p.verdicts > 0) {
      const measured = { verdict: p.verdictMs, reread: p.rereadMs, critique: p.critiqueMs }[phase];
      const longer = measured !== null ? ema(expected, since, ALPHA) : since;
      if (phase === "verdict") verdictMs = longer; else if (phase === "reread") rereadMs = longer; else critiqueMs = longer;
    }
    if (left === 0 && rereadsLeft === 0 && critiquesLeft === 0) return 0;
    const rest = phase === "verdict" ? (left - 1) * verdictMs + rereadsLeft * rereadMs + critiquesLeft * critiqueMs
      : phase === "reread" ? (rereadsLeft - 1) * rereadMs + critiquesLeft * critiqueMs
        : (critiquesLeft - 1) * critiqueMs;
    return Math.max(0, Math.round(stretched - since + rest));
  }

  /** The pace to keep after a check: each measured value, as a free machine's, averaged into the kept one. */
  function remember(kept, p) {
    const k = Object.assign({}, kept || {});
    const free = (x) => x / (p.slow || 1);
    if (ms(p.verdictMs) !== null) k.verdictMs = Math.round(ema(ms(k.verdictMs), free(p.verdictMs), ACROSS));
    if (ms(p.critiqueMs) !== null) k.critiqueMs = Math.round(ema(ms(k.critiqueMs), free(p.critiqueMs), ACROSS));
    if (ms(p.rereadMs) !== null) k.rereadMs = Math.round(ema(ms(k.rereadMs), free(p.rereadMs), ACROSS));
    if (p.rereading && p.verdicts >= 2) {
      k.rereadShare = Math.round(ema(num(k.rereadShare), p.rereads / p.verdicts, ACROSS) * 1000) / 1000;
    }
    if (p.verdicts >= 2) {
      const first = (p.flagged - p.rereadFlagged) / p.verdicts;  // the first read's share: rereads have their own
      k.flaggedShare = Math.round(ema(num(k.flaggedShare), first, ACROSS) * 1000) / 1000;
    }
    return k;
  }

  const api = { MAX_MS, DEFAULT_VERDICT_MS, start, observe, estimate, basis, remember, paces, slowdown };
  root.SC = root.SC || {};
  root.SC.pace = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
