// The side panel's judge calibration, under Settings: whether the judge in use is calibrated (GET /health's
// model.calibrated), and "Calibrate this judge": POST /calibrate, its progress read every second (GET), Cancel
// (DELETE). An older backend, whose health says nothing of calibration, gets no such control.
(function () {
  "use strict";

  const P = globalThis.SC.panel;
  const { $ } = P;
  const POLL_MS = 1000;
  let timer = null;     // the next read of a running calibration's progress
  let looked = null;    // the backend asked once whether one runs (started before the panel opened, or by the CLI)

  const clock = (s) => (s < 60 ? `${Math.max(1, Math.round(s))} s` : `${Math.round(s / 60)} min`);

  function showCalibrated(calibrated, about) {
    $("calibration-state").textContent = calibrated
      ? "This judge is calibrated."
      : "This judge is not calibrated yet: its grades use the default model's scale.";
    // how it was fitted is a developer's line (a command and its sets): there on hover, not in the narrow column
    $("calibration-state").title = calibrated && about && about.fitted_on ? about.fitted_on : "";
    $("calibration-state").dataset.calibrated = String(!!calibrated);
  }

  /** What a calibration will do and about how long, asked before it starts (it holds the judge for a long while). */
  function ask(c) {
    const n = c.total || "about 200";
    $("calibrate-ask-text").textContent = `Calibrating reads ${n} labelled sentences with this judge, one at a time, ` +
      `on this machine: about as long as checking ${n} sentences (with the default judge on a 2-core laptop, ` +
      "20 minutes to an hour). Checks wait until it is done; Cancel stops it and keeps the grades the judge has.";
    $("calibrate-ask").hidden = false;
    $("calibrate").hidden = true;
    $("calibrate-start").focus();
  }

  function unask() {
    $("calibrate-ask").hidden = true;
    $("calibrate").hidden = false;
  }

  /** Show a calibration's status {state, done, total, eta_s, calibrated, error}; quiet: only a running one. */
  function show(c, quiet) {
    const running = c.state === "running";
    $("calibrate").hidden = running;
    $("calibrate-cancel").hidden = !running;
    $("calibrate-progress").hidden = !running;
    $("calibration").dataset.state = c.state;
    if (running) {
      $("calibrate-progress").max = Math.max(1, c.total || 0);
      $("calibrate-progress").value = c.done || 0;
    }
    const words = {
      running: `${c.done || 0} of ${c.total || "?"} sentences` + (typeof c.eta_s === "number" ? ` · about ${clock(c.eta_s)} left` : ""),
      done: "Calibrated: the next check uses this judge's own scale.",
      cancelled: "Calibration cancelled; the judge keeps the grades it had.",
      failed: "Calibration failed: " + ((c.error && c.error.message) || "no reason given"),
    };
    if (running || !quiet) $("calibrate-msg").textContent = words[c.state] || "";
    if (typeof c.calibrated === "boolean") showCalibrated(c.calibrated);
  }

  /** Show a status, and read it again in a second while the calibration runs (a cancel takes a moment too). */
  function follow(c, quiet) {
    clearTimeout(timer);
    timer = null;
    show(c, quiet);
    if (c.state === "running") timer = setTimeout(() => poll(false), POLL_MS);
  }

  function showError(err) {
    $("calibrate-msg").textContent = [err.message, err.hint].filter(Boolean).join(" ");
  }

  /** Read the calibration's status, and again every second while it runs; when it is done, the status line too. */
  async function poll(quiet) {
    clearTimeout(timer);
    timer = null;
    let c;
    try {
      c = (await P.call((client) => client.calibration())).calibration;
    } catch (err) {
      if (!quiet) showError(err);
      return;
    }
    follow(c, quiet);
    if (!quiet && c.state === "done") P.refreshStatus();
  }

  /** From the status line (status.js refreshStatus): show or hide the control and whether the judge is calibrated. */
  function renderCalibration(st) {
    const m = st.model;
    const known = !!(st.reachable && m && typeof m.calibrated === "boolean");
    $("calibration").hidden = !known;
    if (!known) return;
    if (!timer) showCalibrated(m.calibrated, m.calibration);
    $("calibrate").disabled = !st.paired;  // the endpoints need the token
    if (st.paired && looked !== st.backendUrl) {
      looked = st.backendUrl;
      poll(true);
    }
  }

  $("calibrate").addEventListener("click", async () => {
    $("calibrate").disabled = true;
    try {
      ask((await P.call((client) => client.calibration())).calibration);
    } catch (err) {
      showError(err);
    } finally {
      $("calibrate").disabled = false;
    }
  });

  $("calibrate-not-now").addEventListener("click", unask);

  $("calibrate-start").addEventListener("click", async () => {
    unask();
    $("calibrate").disabled = true;
    $("calibrate-msg").textContent = "Starting…";
    try {
      follow((await P.call((client) => client.calibrate())).calibration);
    } catch (err) {
      showError(err);
    } finally {
      $("calibrate").disabled = false;
    }
  });

  $("calibrate-cancel").addEventListener("click", async () => {
    clearTimeout(timer);
    timer = null;
    try {
      follow((await P.call((client) => client.cancelCalibration())).calibration);
    } catch (err) {
      showError(err);
      poll(false);
    }
  });

  Object.assign(globalThis.SC.panel, { renderCalibration });
})();
