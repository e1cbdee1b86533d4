// Copy buttons: a button with data-copy="ID" copies that element's text to the clipboard and says so.
(function () {
  "use strict";
  function copied(button, words) {
    var label = button.textContent;
    button.textContent = words;
    setTimeout(function () { button.textContent = label; }, 2000);
  }
  function fallback(text) {
    // Without the Clipboard API (plain HTTP on another host than localhost): a selected textarea.
    var area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      var text = source ? source.textContent.trim() : "";
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(
          function () { copied(button, "Copied"); },
          function () { copied(button, fallback(text) ? "Copied" : "Select and copy"); }
        );
      } else {
        copied(button, fallback(text) ? "Copied" : "Select and copy");
      }
    });
  });
})();
