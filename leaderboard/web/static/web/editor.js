// The submit page's editor: CodeMirror over the source textarea, which stays the form's field (the form works
// without this script). Tab indents with spaces, line numbers, no soft wrap. The last problem, device kind and
// mode chosen are remembered in this browser and chosen again on a fresh form.
(function () {
  "use strict";
  var source = document.getElementById("id_source");
  var form = source && source.form;
  if (!form) return;
  var KEY = "kernelboard-submit";

  // Remembered choices: only on a form that the server did not prefill (a template, a resubmission).
  var fields = ["problem", "device_kind", "mode"];
  function remembered() {
    try { return JSON.parse(localStorage.getItem(KEY) || "{}"); } catch (e) { return {}; }
  }
  if (!form.hasAttribute("data-prefilled")) {
    var saved = remembered();
    fields.forEach(function (name) {
      var value = saved[name];
      if (!value) return;
      var inputs = form.querySelectorAll("[name=" + name + "]");
      inputs.forEach(function (input) {
        if (input.type === "radio") input.checked = input.value === value;
        else if (input.querySelector("option[value='" + CSS.escape(value) + "']")) input.value = value;
      });
    });
  }
  function remember() {
    var data = new FormData(form), saved = {};
    fields.forEach(function (name) { saved[name] = data.get(name); });
    try { localStorage.setItem(KEY, JSON.stringify(saved)); } catch (e) { /* private mode: not remembered */ }
  }
  form.addEventListener("change", function (e) { if (fields.indexOf(e.target.name) > -1) remember(); });

  if (!window.CodeMirror) return;
  var editor = CodeMirror.fromTextArea(source, {
    mode: "python-cuda",
    lineNumbers: true,
    lineWrapping: false,
    indentUnit: 4,
    tabSize: 4,
    indentWithTabs: false,
    viewportMargin: Infinity,
    extraKeys: {
      // Tab inserts spaces (to the next multiple of four), or indents the selected lines.
      Tab: function (cm) {
        if (cm.somethingSelected()) cm.indentSelection("add");
        else cm.replaceSelection(Array(cm.getOption("indentUnit") - (cm.getCursor().ch % cm.getOption("indentUnit")) + 1).join(" "), "end");
      },
      "Shift-Tab": function (cm) { cm.indentSelection("subtract"); },
      // Escape then Tab leaves the editor, for keyboard users.
      Esc: function (cm) { cm.getInputField().blur(); },
    },
  });
  editor.getWrapperElement().classList.add("code-editor");
  // A file chosen for upload is shown in the editor (submit.js puts it in the textarea).
  source.addEventListener("input", function () { editor.setValue(source.value); });
  form.addEventListener("submit", function () { editor.save(); remember(); });
  window.kernelboardEditor = editor; // for the browser test and the console
})();
