// The submit page: a chosen file is shown in the source box, so that what is sent is what is seen.
(function () {
  "use strict";
  var upload = document.getElementById("id_upload");
  var source = document.getElementById("id_source");
  if (!upload || !source || !window.FileReader) return;
  upload.addEventListener("change", function () {
    var file = upload.files && upload.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () {
      source.value = reader.result;
      source.dispatchEvent(new Event("input")); // the editor (editor.js) shows it, and keeps it as the draft
    };
    reader.readAsText(file);
  });
})();
