// Light or dark: the browser's preference (prefers-color-scheme) unless the visitor chose one with the
// header's button; the choice is remembered in localStorage. Loaded in <head> so that a page never flashes
// in the other theme; the button is wired once the page is parsed.
(function () {
  "use strict";
  var KEY = "kernelboard-theme";
  var root = document.documentElement;
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function current() {
    var chosen = root.getAttribute("data-theme");
    if (chosen === "dark" || chosen === "light") return chosen;
    return media && media.matches ? "dark" : "light";
  }
  function label(button) {
    var next = current() === "dark" ? "light" : "dark";
    button.textContent = next === "dark" ? "Dark" : "Light";
    button.setAttribute("aria-label", "Switch to the " + next + " theme");
    button.setAttribute("title", "Switch to the " + next + " theme");
  }

  var choice = stored();
  if (choice === "dark" || choice === "light") root.setAttribute("data-theme", choice);

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    button.hidden = false;
    label(button);
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: this page only */ }
      label(button);
    });
    if (media && media.addEventListener) media.addEventListener("change", function () { label(button); });
  });
})();
