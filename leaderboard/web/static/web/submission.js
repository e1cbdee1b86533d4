// The submission page while it is queued or running: poll its status (with the judge's last finished case,
// "benchmark 3 of 5 passed · vectoradd[size=256] · 12.3 us per call") and reload once it is final, when the server renders the whole result. Plain
// fetch, no library; without JavaScript a meta refresh does the same.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.fetch) return;
  var url = live.getAttribute("data-status-url");
  var delay = 1000;

  function show(id, visible) {
    var el = document.getElementById(id);
    if (el) el.hidden = !visible;
  }
  function text(id, value) {
    var el = document.getElementById(id);
    if (el) el.textContent = value;
  }

  // The bar's share of a case count the server rendered (set here: the CSP allows no inline style).
  function share(done, total) {
    var bar = document.getElementById("live-bar");
    bar.className = "bar";
    bar.style.width = (100 * done / Math.max(1, total)).toFixed(1) + "%";
  }
  var initial = document.getElementById("live-bar");
  if (initial && initial.hasAttribute("data-total")) {
    share(+initial.getAttribute("data-done"), +initial.getAttribute("data-total"));
  }

  function update(s) {
    if (s.final) {
      window.location.reload();
      return false;
    }
    var badge = document.getElementById("state-badge");
    badge.textContent = s.state;
    badge.className = "badge " + s.state;
    text("live-state", s.state);
    show("cancel-form", s.state === "queued");  // a worker took it: too late to cancel
    show("live-unserved", !!s.unserved);
    show("live-queue", s.queue_position !== null);
    if (s.queue_position !== null) {
      text("live-position", s.queue_position);
      text("live-ahead", s.waiting_ahead);
      text("live-running", s.running_now);
    }
    show("live-wait", s.wait_estimate_s !== null);
    if (s.wait_estimate_s !== null) text("live-wait-s", Math.round(s.wait_estimate_s));
    show("live-typical", s.typical_run_s !== null);
    if (s.typical_run_s !== null) text("live-typical-s", Math.round(s.typical_run_s));
    show("live-elapsed", s.elapsed_s !== null);
    if (s.elapsed_s !== null) text("live-elapsed-s", Math.round(s.elapsed_s));
    var bar = document.getElementById("live-bar");
    var p = s.progress;
    show("live-progress", !!p);
    if (p) {
      // The phase and the place in it ("benchmark 3 of 5"), the case, and a timed case's median per call
      // (formatted by the server, as the page renders it). The bar is the judge's own count over the whole
      // run: a true share, no longer a guess from the clock.
      text("live-kind", p.kind || "case");
      text("live-done", p.kind_done);
      text("live-total", p.kind_total);
      text("live-case-status", p.status);
      document.getElementById("live-case-status").className = "status-" + p.status;
      text("live-case", p.case);
      show("live-time-wrap", !!p.time);
      text("live-time", p.time || "");
      share(p.done, p.total);
    } else {
      bar.className = s.state === "running" ? "bar busy" : "bar";
    }
    // Before the first case: against a typical run of this problem and mode where one is known (it stops
    // short of full until the verdict), else against the mode's wall-clock limit.
    if (!p && s.elapsed_s !== null && (s.typical_run_s || s.wall_limit_s)) {
      var guess = s.typical_run_s ? Math.min(95, 100 * s.elapsed_s / s.typical_run_s)
                                  : Math.min(100, 100 * s.elapsed_s / s.wall_limit_s);
      bar.style.width = guess.toFixed(1) + "%";
    }
    if (s.message) {
      show("message", true);
      text("message", s.message);
    }
    return true;
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (s) { if (update(s)) { delay = 1000; setTimeout(poll, delay); } })
      .catch(function () { delay = Math.min(delay * 2, 15000); setTimeout(poll, delay); });
  }
  setTimeout(poll, delay);
})();
