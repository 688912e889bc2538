// The time-left estimate (lib/pace.js) as a pure function: tables of check events at given times -> estimates.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./helpers.js";

const P = load("lib/pace.js");

const sentences = (n) => ({ type: "sentences", sentences: Array.from({ length: n }, (_, index) => ({ index, checkable: true })) });
const scored = (index, flagged) => ({ type: "verdict", index, label: flagged ? "contradicted" : "supported", final: !flagged });
const critique = (index) => ({ type: "verdict", index, label: "contradicted", final: true });
const TICK = { type: "tick" };  // no event: the toast's clock asks at this time

/** Feed [time, event] rows; return the estimate after each. */
function run(kept, rows) {
  let p = P.start(kept);
  return rows.map(([t, e]) => {
    if (e !== TICK) p = P.observe(p, e, t);
    return P.estimate(p, t);
  });
}

test("a table of event timings gives these estimates (kept pace: 1 s a verdict, 2 s a critique, half flagged)", () => {
  const kept = { verdictMs: 1000, critiqueMs: 2000, flaggedShare: 0.5 };
  const rows = [
    [0, sentences(4)],       // 4 verdicts of 1 s, 2 expected critiques of 2 s
    [3000, scored(0, false)], // the first verdict (model load) is not a pace; share (0 + 2) / 5
    [4200, scored(1, true)],  // 1.2 s a verdict now, so critiques 2.4 s; share (1 + 2) / 6
    [4700, TICK],             // half a second into the next verdict
    [5400, scored(2, false)], // 1.2 s again; share 3 / 7
    [6900, scored(3, true)],  // 1.5 s: pace 1.2 + 0.3 × 0.3 = 1.29 s; critiques 2.58 s; 2 to write
    [9400, critique(1)],      // this check's first critique: 2.5 s after the last verdict
    [12000, critique(3)],     // every critique written
    [12010, { type: "summary" }],
  ];
  assert.deepEqual(run(kept, rows), [
    8000,                       // 4 × 1000 + 2 × 2000
    5400,                       // 3 × 1000 + 3 × 0.4 × 2000
    7200,                       // 2 × 1200 + (1 + 2 × 0.5) × 2400
    6700,                       // 500 ms of it done
    4629,                       // 1200 + (1 + 3/7) × 2400
    5160,                       // 2 × 2580
    2500,                       // 1 × 2500
    0,
    null,                       // over
  ]);
});

test("a first-ever check has an estimate from its first second: a default per sentence, said to be a guess", () => {
  const rows = [[0, sentences(3)], [1000, TICK], [4000, scored(0, false)], [5000, scored(1, false)]];
  // 3 × 5 s + 0.3 × 3 critiques of 10 s; a second later one less; after the first verdict 2 × 5 s + 2 × 0.24 × 10 s;
  // after the second this check's own pace (1 s, a critique 2 s): 1000 + 0.2 × 2000
  assert.deepEqual(run(null, rows), [24000, 23000, 14800, 1400]);
  let p = P.observe(P.start(null), sentences(3), 0);
  assert.equal(P.basis(p), "default");
  assert.equal(P.basis(P.observe(P.start({ verdictMs: 4000 }), sentences(3), 0)), "kept");
  for (const [t, e] of rows.slice(2)) p = P.observe(p, e, t);
  assert.equal(P.basis(p), "check");
});

test("while critiques are written the estimate counts them: one running past its guess stretches the rest", () => {
  // Quick verdicts (0.5 s, as kept from an earlier check) put a critique at 1 s; each takes 10 s. The estimate must not
  // sit at "about 1 s" while they are written.
  const rows = [[0, sentences(3)], [2000, scored(0, true)], [2500, scored(1, true)], [3000, scored(2, true)]];
  for (let t = 4000; t < 13000; t += 1000) rows.push([t, TICK]);
  rows.push([13000, critique(0)], [14000, TICK], [23000, critique(1)], [30000, TICK], [32000, TICK]);
  const truth = (t) => 33000 - t;
  const estimates = run({ verdictMs: 500, critiqueMs: 1000, flaggedShare: 0.5 }, rows);
  rows.forEach(([t, e], i) => {
    assert.ok(estimates[i] > 0, `at ${t} ms a critique is still being written: estimate ${estimates[i]}`);
    // While the first critique runs, the two after it will take at least as long as it has so far; once one is
    // measured, the estimate is within ±25 % (or a second) of the time left.
    const ok = t < 13000 ? estimates[i] >= 2 * (t - 3000) : Math.abs(estimates[i] - truth(t)) <= Math.max(0.25 * truth(t), 1000);
    assert.ok(ok, `at ${t} ms: estimate ${estimates[i]}, truth ${truth(t)}`);
  });
  assert.equal(estimates[rows.findIndex(([t]) => t === 12000)], 19800, "1.8 s more of this one + 2 × its 9 s so far");
  assert.equal(estimates[rows.findIndex(([t]) => t === 14000)], 19000, "2 critiques of the 10 s measured, 1 s done");
});

test("a long first verdict (the search, the model loading) stretches only itself, not the sentences after it", () => {
  const kept = { verdictMs: 5000, critiqueMs: 10000, flaggedShare: 0.3 };
  // 20 s in: this one takes 20 % more than so far (4 s), then 9 verdicts of 5 s and 3 critiques of 10 s
  assert.deepEqual(run(kept, [[0, sentences(10)], [20000, TICK]]), [80000, 79000]);
});

/** A check of n sentences at a steady pace: the events and the true time left at each. */
function steady({ n, flagged, loadMs, verdictMs, critiqueMs, jitter = () => 0 }) {
  const rows = [[0, sentences(n)]];
  let t = loadMs;
  for (let i = 0; i < n; i++) {
    rows.push([t, scored(i, flagged.includes(i))]);
    t += verdictMs + jitter(i);
  }
  t -= verdictMs + jitter(n - 1);
  for (const i of flagged) {
    t += critiqueMs + jitter(i);
    rows.push([t, critique(i)]);
  }
  return { rows, end: t };
}

const SCENARIOS = [
  { name: "kept pace right", kept: { verdictMs: 4800, critiqueMs: 9000, flaggedShare: 0.3 },
    check: { n: 10, flagged: [1, 4, 8], loadMs: 6000, verdictMs: 4800, critiqueMs: 9000 } },
  { name: "machine 1.5× slower than kept", kept: { verdictMs: 4800, critiqueMs: 9000, flaggedShare: 0.3 },
    check: { n: 10, flagged: [1, 5, 8], loadMs: 9000, verdictMs: 7200, critiqueMs: 13500 } },
  { name: "machine 2× faster, jittery", kept: { verdictMs: 4800, critiqueMs: 9000, flaggedShare: 0.3 },
    check: { n: 12, flagged: [0, 5, 9, 10], loadMs: 3000, verdictMs: 2400, critiqueMs: 4500, jitter: (i) => (i % 2 ? 300 : -300) } },
  { name: "nothing kept, first check on this machine", kept: null,
    check: { n: 10, flagged: [2, 5, 8], loadMs: 8000, verdictMs: 5000, critiqueMs: 11000 } },
];

for (const s of SCENARIOS) {
  test(`after the first two sentences the estimate is within ±25 % of the time left, critiques included: ${s.name}`, () => {
    const { rows, end } = steady(s.check);
    const estimates = run(s.kept, rows);
    rows.forEach(([t, e], i) => {
      const verdictsSoFar = rows.slice(0, i + 1).filter(([, x]) => x.type === "verdict" && x.final !== true || x.label === "supported").length;
      if (verdictsSoFar < 2 || t >= end) return;
      const truth = end - t;
      const err = (estimates[i] - truth) / truth;
      assert.ok(Math.abs(err) <= 0.25, `${s.name}: at ${t} ms (${e.type} ${e.index}) estimate ${estimates[i]}, truth ${truth}`);
    });
  });
}

test("the kept pace is an average over checks, and a check that measured nothing changes nothing", () => {
  const kept = { verdictMs: 1000, critiqueMs: 2000, flaggedShare: 0.5 };
  let p = P.start(kept);
  for (const [t, e] of [[0, sentences(4)], [3000, scored(0, false)], [4200, scored(1, true)], [5400, scored(2, false)],
    [6900, scored(3, true)], [9400, critique(1)], [12000, critique(3)]]) p = P.observe(p, e, t);
  assert.deepEqual(P.remember(kept, p), { verdictMs: 1145, critiqueMs: 2265, flaggedShare: 0.5 });
  const nothing = P.observe(P.start(kept), sentences(3), 0);
  assert.deepEqual(P.remember(kept, nothing), kept);
  assert.deepEqual(P.remember(undefined, p), { verdictMs: 1290, critiqueMs: 2530, flaggedShare: 0.5 });
});

test("the progress toast says the estimate, and nothing when there is none", () => {
  const CS = load("lib/check-state.js");
  const T = load("content/toast.js");
  let s = CS.initial("c", "text");
  s = CS.apply(s, sentences(3));
  s = CS.apply(s, scored(0, true));
  assert.equal(T.progressText(s, 3200, 65000), "1 of 3 sentences checked · 3 s · about 1 min 5 s left");
  assert.equal(T.progressText(s, 3200, null), "1 of 3 sentences checked · 3 s");
});

test("a flagged verdict that comes already final does not time the first critique from nothing", () => {
  // Sentence 0 is flagged and comes with its critique (final): it counts as a critique but was never timed. The
  // first critique timed is then sentence 1's, from the last verdict, not from a critique that never was (null).
  const T0 = 1_700_000_000_000;  // Date.now(): what `now - null` measured
  let p = P.start(null);
  for (const [t, e] of [
    [T0 + 1_000, sentences(2)],
    [T0 + 2_000, { type: "verdict", index: 0, label: "contradicted", final: true }],
    [T0 + 3_000, scored(1, true)],
    [T0 + 7_000, critique(1)],
  ]) p = P.observe(p, e, t);
  assert.equal(p.critiqueMs, 4000, "7 s - 3 s (the last verdict)");
  assert.deepEqual(P.remember(null, p), { verdictMs: 1000, critiqueMs: 4000, flaggedShare: 1 });
});

test("a gap over ten minutes is not a pace: it never enters the average, nor the kept pace", () => {
  let p = P.start({ verdictMs: 1000, critiqueMs: 2000, flaggedShare: 0.5 });
  for (const [t, e] of [
    [0, sentences(3)],
    [1_000, scored(0, true)],
    [1_000 + 11 * 60_000, scored(1, false)],  // the laptop slept for 11 min
    [1_000 + 11 * 60_000 + 1_500, scored(2, false)],
    [1_000 + 40 * 60_000, critique(0)],
  ]) p = P.observe(p, e, t);
  assert.equal(p.verdictMs, 1500, "only the 1.5 s gap");
  assert.equal(p.critiqueMs, null, "the 29 min one ignored");
  assert.deepEqual(P.remember({ verdictMs: 1000, critiqueMs: 2000 }, p), { verdictMs: 1250, critiqueMs: 2000, flaggedShare: 0.333 });
  // A pace kept out of bounds by an older version counts as never measured.
  const healed = P.start({ verdictMs: 1.7e12, critiqueMs: 1.7e12, flaggedShare: 0.5 });
  assert.deepEqual([healed.kept.verdictMs, healed.kept.critiqueMs], [null, null]);
  assert.deepEqual(P.remember({ verdictMs: 1000, critiqueMs: 1.7e12 }, Object.assign({}, p, { critiqueMs: 3000 })).critiqueMs, 3000);
});

/** A check whose judge reads unsure sentences again: verdicts, then second reads, then critiques, at steady paces. */
function withRereads({ n, flagged, unsure, flaggedAfter, loadMs, verdictMs, rereadMs, critiqueMs }) {
  const rows = [[0, Object.assign(sentences(n), { judge: { rereads: true } })]];
  let t = loadMs;
  for (let i = 0; i < n; i++) {
    const e = unsure.includes(i) ? { type: "verdict", index: i, label: "uncertain", final: false, rereading: true } : scored(i, flagged.includes(i));
    rows.push([t, e]);
    t += verdictMs;
  }
  t -= verdictMs;
  for (const i of unsure) {
    t += rereadMs;
    const bad = flaggedAfter.includes(i);
    rows.push([t, { type: "verdict", index: i, label: bad ? "unsupported" : "supported", final: !bad }]);
  }
  for (const i of [...flagged, ...flaggedAfter]) {
    t += critiqueMs;
    rows.push([t, critique(i)]);
  }
  return { rows, end: t };
}

test("a judge that reads unsure sentences again: the second reads have a pace of their own, the estimate stays within ±35 %", () => {
  const check = { n: 12, flagged: [1, 7], unsure: [2, 4, 5, 9], flaggedAfter: [4], loadMs: 6000, verdictMs: 5000, rereadMs: 4000, critiqueMs: 11000 };
  const { rows, end } = withRereads(check);
  for (const kept of [null, { verdictMs: 5000, critiqueMs: 11000, flaggedShare: 0.2, rereadMs: 4000, rereadShare: 0.3 }]) {
    const estimates = run(kept, rows);
    rows.forEach(([t], i) => {
      if (i < 3 || t >= end) return;  // from the second verdict on
      const err = (estimates[i] - (end - t)) / (end - t);
      assert.ok(Math.abs(err) <= 0.35, `kept ${!!kept}: at ${t} ms estimate ${estimates[i]}, truth ${end - t}`);
    });
  }
  let p = P.start(null);
  for (const [t, e] of rows) p = P.observe(p, e, t);
  assert.equal(p.rereadMs, 4000, "each second read timed from the one before, the first from the last verdict");
  assert.equal(p.critiqueMs, 11000, "the first critique timed from the last second read");
  const kept = P.remember(null, p);
  assert.deepEqual([kept.rereadMs, kept.rereadShare, kept.flaggedShare], [4000, 0.333, 0.167]);
});

test("the progress toast says which step runs once every sentence is scored: reading again, then writing critiques", () => {
  const CS = load("lib/check-state.js");
  const T = load("content/toast.js");
  let s = CS.apply(CS.initial("c", "text"), sentences(2));
  s = CS.apply(s, { type: "verdict", index: 0, label: "uncertain", final: false, rereading: true });
  s = CS.apply(s, scored(1, true));
  assert.equal(T.progressText(s, 3200, null), "2 of 2 sentences checked; reading 1 again… · 3 s");
  s = CS.apply(s, { type: "verdict", index: 0, label: "supported", final: true, rereading: false });
  assert.equal(T.progressText(s, 4200, null), "2 of 2 sentences checked; writing 1 critique… · 4 s");
});

test("a machine busy with other work stretches the kept pace, and the pace kept is a free machine's", () => {
  const kept = { verdictMs: 1000, critiqueMs: 2000, flaggedShare: 0.5 };
  const busy = { ...sentences(4), machine: { cores: 2, others_busy: 2 } };
  assert.equal(P.slowdown(busy.machine), 1.6);  // 1 + 0.6 × 2 / 2: as measured beside another llama.cpp
  assert.equal(P.slowdown({ cores: 2, others_busy: 9 }), 1.6);  // never past every core taken
  assert.equal(P.slowdown(undefined), 1);
  assert.equal(P.slowdown({ cores: 0, others_busy: 1 }), 1);
  // The first guess: 4 verdicts and 2 expected critiques at 1.6 times the kept time (8000 on a free machine).
  assert.deepEqual(run(kept, [[0, busy]]), [12800]);
  assert.deepEqual(run(kept, [[0, { ...sentences(4), machine: { cores: 2, others_busy: 0 } }]]), [8000]);
  // A check on the busy machine at 1.6 s a verdict and 3.2 s a critique keeps 1 s and 2 s: a free machine's.
  let p = P.start(null);
  for (const [t, e] of [[0, busy], [3000, scored(0, true)], [4600, scored(1, false)], [6200, scored(2, true)],
    [7800, scored(3, false)], [11000, critique(0)], [14200, critique(2)], [14210, { type: "summary" }]]) {
    p = P.observe(p, e, t);
  }
  const k = P.remember(null, p);
  assert.equal(k.verdictMs, 1000);
  assert.equal(k.critiqueMs, 2000);
});
