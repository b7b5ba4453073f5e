// Prompt page: one-click copy, and the filled prompt updating as the
// person types. Without this file the page still works: the variables
// form is a GET form the server fills in, and only the copy buttons
// (hidden until now) are missing.
(function () {
  "use strict";

  // The same placeholder rule as the server (handlers_variables.go).
  var placeholder = /\{\{([^{}]{1,64})\}\}/gu;
  var validName = /^[\p{L}\p{N}_\- ]+$/u;

  function fill(text, values) {
    return text.replace(placeholder, function (match, inner) {
      var name = inner.trim();
      if (!validName.test(name)) return match;
      var value = values[name];
      return value ? value : match;
    });
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Plain http on a LAN address has no Clipboard API.
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }

  function announce(message) {
    var status = document.getElementById("copy-status");
    if (!status) return;
    // Clearing first makes a repeated message announced again.
    status.textContent = "";
    window.setTimeout(function () { status.textContent = message; }, 50);
  }

  function setUpCopy(button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var source = document.getElementById(button.dataset.copy);
      if (!source) return;
      copyText(source.textContent).then(
        function () { announce(button.dataset.copied); },
        function () { announce(button.dataset.copyFailed); }
      );
    });
  }

  // The run links carry the filled prompt as their question: kept up to
  // it, or hidden (and the "too long" hint shown) past data-run-most
  // characters, as the server renders them.
  function updateRun(text) {
    var run = document.querySelector("[data-run-most]");
    if (!run) return;
    var tooLong = Array.from(text).length > Number(run.dataset.runMost);
    run.querySelector(".prompt-run-links").hidden = tooLong;
    run.querySelector("[data-testid=prompt-run-long]").hidden = !tooLong;
    run.querySelectorAll("a[data-run]").forEach(function (a) {
      a.href = a.dataset.run + encodeURIComponent(text);
    });
  }

  function setUpVariables(form) {
    var original = document.getElementById("prompt-text");
    var filled = document.getElementById("prompt-filled");
    if (!original || !filled) return;
    var inputs = form.querySelectorAll("input[data-var]");
    var update = function () {
      var values = {};
      inputs.forEach(function (input) { values[input.dataset.var] = input.value; });
      filled.textContent = fill(original.textContent, values);
      updateRun(filled.textContent);
    };
    form.addEventListener("input", update);
  }

  document.querySelectorAll("button[data-copy]").forEach(setUpCopy);
  var form = document.getElementById("prompt-variables-form");
  if (form) setUpVariables(form);
})();
