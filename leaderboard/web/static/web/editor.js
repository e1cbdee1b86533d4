// The submit page's editor: CodeMirror over the source textarea, which stays the form's field (the form works
// without this script). Tab indents with spaces, line numbers, no soft wrap. The last problem, device kind and
// mode chosen are remembered in this browser and chosen again on a fresh form.
//
// Templates and drafts (docs/web.md, "The editor"): a fresh form holds the problem's starter template (the
// server puts it in); choosing a template replaces the code only after asking, when the editor holds code of
// the user's own, and sets the language the template is written in. What the user types is kept as a draft per
// user and problem in this browser's localStorage (not on the server), put back on a fresh form for that
// problem, and offered back on a form that starts from a template or a submission.
(function () {
  "use strict";
  var source = document.getElementById("id_source");
  var form = source && source.form;
  if (!form) return;
  var KEY = "kernelboard-submit";

  function stored(key, fallback) {
    try { return JSON.parse(localStorage.getItem(key) || "null") || fallback; } catch (e) { return fallback; }
  }
  function store(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify(value));
    } catch (e) { /* private mode: not kept */ }
  }

  // Remembered choices: only on a form that the server did not prefill (a template, a resubmission).
  var fields = ["problem", "device_kind", "mode"];
  if (!form.hasAttribute("data-prefilled")) {
    var saved = stored(KEY, {});
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
    var data = new FormData(form), choices = {};
    fields.forEach(function (name) { choices[name] = data.get(name); });
    store(KEY, choices);
  }
  form.addEventListener("change", function (e) { if (fields.indexOf(e.target.name) > -1) remember(); });

  var editor = null;
  if (window.CodeMirror) {
    editor = CodeMirror.fromTextArea(source, {
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
    window.kernelboardEditor = editor; // for the browser test and the console
  }
  function text() { return editor ? editor.getValue() : source.value; }
  function setText(value) { if (editor) editor.setValue(value); else source.value = value; }

  // --- templates and drafts ---
  var catalogue = {};
  var data = document.getElementById("editor-templates");
  try { catalogue = data ? JSON.parse(data.textContent) : {}; } catch (e) { catalogue = {}; }
  var problem = form.querySelector("[name=problem]");
  var language = form.querySelector("[name=language]");
  var starts = form.querySelector("p.starts");
  var note = document.getElementById("draft-note");
  var user = form.getAttribute("data-user") || "";
  var origin = form.getAttribute("data-origin") || "posted";
  var rendered = { problem: problem.value, starts: starts ? starts.innerHTML : "" };
  var current = problem.value;

  function templatesOf(name) { return (catalogue[name] || {}).templates || {}; }
  function normal(value) { return (value || "").replace(/\r\n/g, "\n").replace(/\s+$/, ""); }
  // Code of the user's own: neither empty nor one of the problem's templates as it came.
  function typed(name) {
    var value = normal(text()), templates = templatesOf(name);
    return value !== "" && !Object.keys(templates).some(function (t) { return normal(templates[t].source) === value; });
  }
  function draftKey(name) { return "kernelboard-draft:" + user + ":" + name; }
  // Keeps the editor's code as the problem's draft when it is the user's own; `drop`: else forgets the draft.
  function keepDraft(name, drop) {
    if (typed(name)) store(draftKey(name), { source: text(), language: language.value, saved: Date.now() });
    else if (drop) store(draftKey(name), null);
  }
  function load(value, lang) {
    setText(value);
    if (lang && language.querySelector("option[value='" + CSS.escape(lang) + "']")) language.value = lang;
  }
  function say(words, action, onAction) {
    if (!note) return;
    note.textContent = words;
    if (action) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "button small";
      button.id = "draft-back";
      button.textContent = action;
      button.addEventListener("click", onAction);
      note.appendChild(document.createTextNode(" "));
      note.appendChild(button);
    }
    note.hidden = !words;
  }
  function ask(what) {
    return !typed(problem.value) || window.confirm("Replace the code in the editor with " + what + "? What you typed there will be lost.");
  }
  // The problem's draft, else its starter template.
  function startProblem(name) {
    var draft = stored(draftKey(name), null);
    if (draft && draft.source) {
      load(draft.source, draft.language);
      say("Your draft for " + name + " is back (kept in this browser).");
      return;
    }
    var entry = catalogue[name], starter = entry && entry.templates[entry.starter];
    load(starter ? starter.source : "", starter && starter.language);
    say("");
  }
  // The "Start from" links of the chosen problem (the server drew those of the problem it rendered).
  function drawStarts(name) {
    if (!starts) return;
    if (name === rendered.problem) { starts.innerHTML = rendered.starts; return; }
    starts.textContent = "Start from: ";
    Object.keys(templatesOf(name)).forEach(function (t) {
      var link = document.createElement("a");
      link.href = window.location.pathname + "?problem=" + encodeURIComponent(name) + "&template=" + encodeURIComponent(t);
      link.setAttribute("data-template", t);
      link.textContent = "template " + t;
      starts.appendChild(link);
    });
  }

  if (origin === "starter") {
    if (problem.value !== rendered.problem) drawStarts(problem.value);
    startProblem(problem.value);
  } else if (origin === "template" || origin === "submission") {
    var draft = stored(draftKey(problem.value), null);
    if (draft && draft.source && normal(draft.source) !== normal(text())) {
      say("You have a draft for " + problem.value + " in this browser.", "Put my draft back", function () {
        if (!ask("your draft")) return;
        load(draft.source, draft.language);
        say("");
      });
    }
  }

  if (starts) {
    starts.addEventListener("click", function (e) {
      var link = e.target.closest("a");
      if (!link) return;
      var name = link.getAttribute("data-template");
      var template = name && templatesOf(problem.value)[name];
      if (!ask(name ? "the template " + name : link.textContent)) { e.preventDefault(); return; }
      if (!template) return; // a submission of one's own: the server fills the form
      e.preventDefault();
      load(template.source, template.language);
      keepDraft(problem.value, true); // the user chose the template over their code: the draft goes
      say("");
    });
  }
  problem.addEventListener("change", function () {
    keepDraft(current);
    current = problem.value;
    drawStarts(current);
    startProblem(current);
  });
  var pending = null;
  function soon() { clearTimeout(pending); pending = setTimeout(function () { keepDraft(current); }, 300); }
  if (editor) editor.on("change", soon);
  else source.addEventListener("input", soon);
  language.addEventListener("change", soon);
  window.addEventListener("pagehide", function () { keepDraft(current); });
  form.addEventListener("submit", function () {
    if (editor) editor.save();
    keepDraft(current);
    remember();
  });
})();
