// A submission refused for a syntax error: its source opens at the marked line.
(function () {
  "use strict";
  var line = document.getElementById("error-line");
  if (line && !location.hash) line.scrollIntoView({ block: "center" });
})();
