// The content script: turns a selection into a check, streams the verdicts in from the service
// worker, and shows them as marks and cards. It never fetches the backend itself (a page-origin
// fetch to 127.0.0.1 is refused) and never edits the page's nodes.
(function (root) {
  "use strict";

  // Injected twice (manifest + scripting.executeScript into an old tab)? Keep the first.
  if (root.__sourcecheckContent) return;
  root.__sourcecheckContent = true;

  const { browser: B, messages: M, errors: E, settings: S, anchoring: AN, edit: ED, labels: L } = root.SC;
  const { MSG } = M;
  const doc = root.document;
  // A claim has a few words: a double-clicked word or a short label gets no Check button.
  const MIN_SELECTION = 12;
  const MIN_WORDS = 3;
  const HOVER_MS = 120;
  const LEAVE_MS = 350;
  // Chat apps blank and refill an answer while they stream it: only sentences still gone after this are reported.
  const MISSING_GRACE_MS = 2000;

  const isOwnUi = (element) => element.hasAttribute && element.hasAttribute("data-sourcecheck-ui");
  let lastRange = null;       // the last non-empty selection, for the menu and the shortcut
  let hoverTimer = null;
  let leaveTimer = null;
  let overCard = false;
  let missingTimer = null;

  let keysRef = null;  // the Keys below (onMissing's reportMissing closes a card through it)
  const marks = new root.SC.Marks(doc, { isOwnUi, onMissing });
  const ui = new root.SC.UI(doc, {
    onCheck: () => startCheck(""),
    onOpenEvidence: (ev) => B.send(M.message(MSG.OPEN_VIEWER, {
      documentId: ev.document_id, page: ev.page, quote: ev.quote, filename: ev.filename,
    })).catch(() => {}),
    onOpenPanel: () => B.send(M.message(MSG.OPEN_SIDE_PANEL)).catch(() => {}),
    onCardEnter: () => { overCard = true; clearTimeout(leaveTimer); },
    onCardLeave: () => { overCard = false; scheduleHide(); },
    onCardChange: (entry) => marks.setActive(entry),
    canApply: (entry) => !!ED.editableHost(entry.range),
    onApply: (entry) => keys.apply(entry),
    onDismiss: (entry) => keys.dismiss(entry),
  });

  const memory = new root.SC.PageMemory(marks, {
    url: () => root.location.href,
    get: (key) => B.get(key).then((r) => r && r[key]),
    save: (url, record) => B.send(M.message(MSG.SAVE_MARKS, { url, record })).catch(() => {}),
    // A private window keeps nothing (the service worker refuses too: sender.tab.incognito).
    incognito: !!(B.ext.extension && B.ext.extension.inIncognitoContext),
  });

  const keys = new root.SC.Keys(doc, marks, ui, {
    open: (entry, focus, scroll) => {
      const r = entry.range.getBoundingClientRect();
      if (scroll && (r.top < 0 || r.bottom > root.innerHeight)) marks.scrollTo(entry.key);
      ui.showCard(entry, entry.range, true, focus);
    },
    apply: applyRevision,
    copy: () => ui.press("copy"),
    dismiss: (entry) => memory.dismiss(entry),
    restored: (entry) => memory.save(memory.pageOf(entry)),  // a mark an undo brought back is kept across reloads
  });
  keysRef = keys;

  /** Put entry's revision in place of its sentence where the page's text is editable, else copy it; true when put. */
  function applyRevision(entry) {
    const v = entry.verdict || {};
    if (!v.revised || v.revised === entry.text) return false;
    if (!ED.editableHost(entry.range)) { ui.press("copy"); return false; }
    if (AN.collapse(AN.textOf(entry.range)) !== AN.collapse(entry.selectors.quote.exact)) {
      ui.showToast({ kind: "info", title: "The sentence changed since it was checked", body: "Nothing was replaced.", autoHideMs: 5000 });
      return false;
    }
    const range = entry.range.cloneRange();
    const page = memory.pageOf(entry);
    marks.remove(entry);  // first: its sentence goes on purpose, it is not "no longer on this page"
    ED.replaceRange(doc, range, v.revised);
    memory.save(page);
    return true;
  }

  // The settings first (whether supported sentences are marked), then the marks this page had before a reload.
  S.load(B.get).then((s) => marks.setShowSupported(s.showSupported)).catch(() => {})
    .then(() => memory.restore()).catch((err) => console.warn("sourcecheck: the page's marks were not restored:", err));
  // A chat app moves to another conversation in-page (pushState, back/forward): draw the marks kept for the new URL.
  // The Navigation API sees the page's pushState from here (a content script cannot wrap the page's history.pushState);
  // without it (older Firefox), the URL is looked at every second.
  const onNavigated = () => {
    memory.navigated().catch((err) => console.warn("sourcecheck: the page's marks were not restored:", err));
  };
  root.addEventListener("popstate", onNavigated);
  if (root.navigation && root.navigation.addEventListener) root.navigation.addEventListener("currententrychange", onNavigated);
  else setInterval(onNavigated, 1000);
  B.onStorageChanged((changes, area) => {
    if (area === "local" && changes.showSupported) marks.setShowSupported(changes.showSupported.newValue);
  });
  const runs = new root.SC.Runs(doc, marks, ui, memory);

  // ---------------------------------------------------------------- selection and trigger

  /** The selection, if it may be checked. Text in an editor (contenteditable) only when asked explicitly (menu, shortcut):
   * the ✓ Check button would pop up at every word selected while writing. Form fields never (nothing can be marked there). */
  function selectionRange(allowEditable) {
    const sel = doc.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    const range = sel.getRangeAt(0);
    const chosen = sel.toString().trim();
    const spaced = !/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(chosen);  // CJK has no spaces to count
    if (chosen.length < MIN_SELECTION && spaced || spaced && chosen.split(/\s+/).length < MIN_WORDS) return null;
    const node = range.commonAncestorContainer;
    const el = node.nodeType === 1 ? node : node.parentElement;
    if (el && (el.closest("input, textarea") || isOwnUi(el) || (!allowEditable && el.isContentEditable))) return null;
    return range;
  }

  function onSelectionMaybeChanged() {
    const range = selectionRange();
    if (!range) { ui.hideButton(); return; }
    lastRange = range.cloneRange();
    const rects = range.getClientRects();
    const rect = rects.length ? rects[rects.length - 1] : range.getBoundingClientRect();
    ui.showButton(rect, rects.length ? [...rects] : [rect]);
  }

  let selTimer = null;
  doc.addEventListener("selectionchange", () => {
    clearTimeout(selTimer);
    selTimer = setTimeout(onSelectionMaybeChanged, 150);
  });
  let scrollQueued = false;
  root.addEventListener("scroll", () => {
    ui.hideButton();
    if (scrollQueued || !ui.cardVisible()) return;
    scrollQueued = true;
    root.requestAnimationFrame(() => { scrollQueued = false; ui.follow(); });
  }, { passive: true, capture: true });

  /** The range to check: the live selection, else the last one, else fallbackText found in the page. */
  function rangeToCheck(fallbackText) {
    const live = selectionRange(true);
    if (live) return live.cloneRange();
    if (lastRange && !lastRange.collapsed && lastRange.startContainer.isConnected) return lastRange;
    if (fallbackText && fallbackText.trim()) {
      const idx = AN.buildTextIndex(doc.body, isOwnUi);
      const found = AN.findQuote(AN.prepare(idx.text), { exact: fallbackText, prefix: "", suffix: "" });
      if (found) return AN.rangeFor(idx, found.start, found.end);
    }
    return null;
  }

  function startCheck(fallbackText) {
    const range = rangeToCheck(fallbackText);
    if (!range) {
      ui.showToast({ error: E.friendlyError({ code: "no_selection" }), autoHideMs: 6000 });
      return { ok: true, started: false };
    }
    return runs.start(range);
  }

  function onMissing(keys, entries) {
    clearTimeout(missingTimer);
    if (!entries.length) { reportMissing(keys, entries); return; }
    missingTimer = setTimeout(() => reportMissing(keys, entries), MISSING_GRACE_MS);
  }

  /** Tell the side panel which sentences are gone (per check: the page may hold marks of several, or restored ones),
   * and name the gone marks in a notice; it goes when they come back. */
  function reportMissing(keys, entries) {
    // the open card's sentence is still gone after the grace (edited away, not a re-render): its card goes with it,
    // not left open over other text, and the focus goes back where it was
    if (ui.cardVisible() && entries.includes(ui.cardEntry)) keysRef.close();
    const checks = new Set([...marks.entries.values()].map((e) => e.checkId));
    for (const checkId of checks) {
      const missing = keys.filter((k) => k.startsWith(checkId + ":"));
      B.send(M.message(MSG.MARKS_STATUS, { checkId, missing })).catch(() => {});
    }
    // Not the marks of a page the app navigated away from in-page: they are kept under their own URL.
    const gone = entries.filter((e) => marks.isMarked(e) && memory.onThisPage(e));
    if (!gone.length) {
      if (ui.toastKind() === "missing") ui.hideToast();
      return;
    }
    ui.showToast({
      kind: "missing",
      title: `${L.count(gone.length, "marked sentence")} ${gone.length === 1 ? "is" : "are"} no longer on this page`,
      list: gone.map((e) => `${L.LABEL_TEXT[e.label] || e.label}: “${e.text.length > 90 ? e.text.slice(0, 88) + "…" : e.text}”`),
    });
  }

  // ---------------------------------------------------------------- hover and click on marks

  function scheduleHide() {
    clearTimeout(leaveTimer);
    leaveTimer = setTimeout(() => { if (!overCard) ui.hideCard(false); }, LEAVE_MS);
  }

  let moveQueued = false;
  let lastMove = null;
  doc.addEventListener("mousemove", (e) => {
    lastMove = e;
    if (moveQueued || !marks.entries.size) return;
    moveQueued = true;
    root.requestAnimationFrame(() => {
      moveQueued = false;
      const ev = lastMove;
      if (ui.owns(ev)) return;
      // The primary button is down: the person is dragging a selection, and a card would land on it.
      if (ev.buttons & 1) { clearTimeout(hoverTimer); return; }
      const entry = marks.hitTest(ev.clientX, ev.clientY);
      clearTimeout(hoverTimer);
      if (entry && entry.verdict) {
        clearTimeout(leaveTimer);
        if (ui.cardEntry === entry || ui.pinned) return;
        hoverTimer = setTimeout(() => ui.showCard(entry, entry.range, false), HOVER_MS);
      } else if (ui.cardVisible() && !ui.pinned) {
        scheduleHide();
      }
    });
  }, { passive: true });

  // A card about to open on hover waits for the pointer to rest, not for a drag that has just begun.
  doc.addEventListener("mousedown", (e) => { if (!ui.owns(e)) clearTimeout(hoverTimer); }, { passive: true, capture: true });

  doc.addEventListener("click", (e) => {
    if (ui.owns(e)) return;
    const entry = marks.entries.size ? marks.hitTest(e.clientX, e.clientY) : null;
    if (entry && entry.verdict) {
      // Only when the user is not making a selection of their own.
      const sel = doc.getSelection();
      if (sel && !sel.isCollapsed) return;
      // The card takes the focus (and gives it back on Esc): its keys act only there, so in an editor, where the
      // click put the caret, a key pressed next goes to the card, not into the text.
      keys.open(entry, true, false);
    } else if (ui.cardVisible()) {
      ui.hideCard(true);
    }
  }, { passive: true, capture: true });

  // ---------------------------------------------------------------- messages from the service worker

  B.ext.runtime.onMessage.addListener(M.createRouter({
    [MSG.PING]: () => ({ ok: true }),
    [MSG.START_CHECK]: (msg) => startCheck(msg.fallbackText),
    [MSG.SCROLL_TO]: (msg) => {
      const entry = marks.scrollTo(msg.key);
      if (!entry) return { ok: false, error: { code: "not_found", message: "not on this page" } };
      if (entry.verdict) setTimeout(() => ui.showCard(entry, entry.range, true), 350);
      return { ok: true };
    },
  }));
})(typeof globalThis !== "undefined" ? globalThis : this);
