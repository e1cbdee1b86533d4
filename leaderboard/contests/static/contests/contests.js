// Contests: counts down each <time data-until> in the words of the time_left filter (reloading the page
// when one reaches zero: the contest started or ended), and on a contest's board that is not final fetches
// the page again every 10 s: the new board in place, or the whole page when the contest changed phase.
(function () {
  "use strict";
  function words(s) {
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    if (d) return d + " d " + h + " h";
    if (h) return h + " h " + m + " min";
    return m ? m + " min " + (s % 60) + " s" : (s % 60) + " s";
  }
  function tick() {
    document.querySelectorAll("time[data-until]").forEach(function (el) {
      var s = Math.max(0, Math.round((Date.parse(el.getAttribute("data-until")) - Date.now()) / 1000));
      el.textContent = words(s);
      if (s === 0 && !el.hasAttribute("data-done")) {
        el.setAttribute("data-done", "");
        setTimeout(function () { location.reload(); }, 1500);
      }
    });
  }
  if (document.querySelector("time[data-until]")) {
    tick();
    setInterval(tick, 1000);
  }
  var board = document.getElementById("contest-board");
  if (board && board.getAttribute("data-phase") !== "final") {
    setInterval(function () {
      fetch(location.href, { headers: { Accept: "text/html" }, cache: "no-store" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("contest-board");
          if (!fresh) return;
          if (fresh.getAttribute("data-phase") !== board.getAttribute("data-phase")) location.reload();
          else board.innerHTML = fresh.innerHTML;
        })
        .catch(function () {});
    }, 10000);
  }
})();
