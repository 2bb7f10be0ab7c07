// Storymaster table: small progressive enhancements. Every form works without this file.
(function () {
  "use strict";
  function csrfOf(form) { var f = form.querySelector("input[name=csrf]"); return f ? f.value : ""; }
  function debounce(fn, ms) { var t; return function () { clearTimeout(t); t = setTimeout(fn, ms); }; }
  function post(url, form, extra) {
    var data = new FormData(form);
    if (extra) Object.keys(extra).forEach(function (k) { data.set(k, extra[k]); });
    return fetch(url, { method: "POST", body: data, credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRF-Token": csrfOf(form) } });
  }

  // Character builder: the running totals and creation problems as you type.
  document.querySelectorAll("form[data-check]").forEach(function (form) {

    var run = debounce(function () {
      post(form.dataset.check, form).then(function (r) { return r.json(); }).then(function (j) {
        if (!j.html) return;
        var old = document.getElementById("report");
        var box = document.createElement("div"); box.innerHTML = j.html;
        old.replaceWith(box.firstElementChild);
      }).catch(function () {});
    }, 400);
    form.addEventListener("input", run);
    form.addEventListener("change", run);
  });

  // Composer: the exact odds of the roll while typing.
  document.querySelectorAll("form[data-preview]").forEach(function (form) {
    var run = debounce(function () {
      var kind = form.querySelector("input[name=roll_kind]:checked");
      if (!kind || kind.value === "none") { document.getElementById("odds").innerHTML = ""; return; }
      post(form.dataset.preview, form).then(function (r) { return r.json(); }).then(function (j) {
        var odds = document.getElementById("odds");
        if (j.html) { var box = document.createElement("div"); box.innerHTML = j.html; odds.replaceWith(box.firstElementChild); }
        else if (j.error) { odds.textContent = "No odds yet: " + j.error; }
      }).catch(function () {});
    }, 350);
    var box = form.querySelector(".rollbox");
    var typeSel = form.querySelector("[name=check_type]");
    function showFields() {  // only the chosen check's fields (without JS all are shown; the server reads the chosen one)
      form.querySelectorAll(".check-fields").forEach(function (fs) {
        var on = typeSel && fs.dataset.checkType === typeSel.value;
        fs.hidden = !on; fs.disabled = !on;
      });
    }
    if (typeSel) { typeSel.addEventListener("change", showFields); showFields(); }
    var entrySel = form.querySelector("[name=check_entry]");
    function useEntry() {  // a character's check decides the kind; its values show as the fields' placeholders
      if (!entrySel || !typeSel) return;
      var opt = entrySel.options[entrySel.selectedIndex];
      var kind = opt && opt.dataset.check;
      typeSel.disabled = !!kind;
      if (kind) { typeSel.value = kind; }
      var defaults = {};
      try { defaults = kind ? JSON.parse(opt.dataset.defaults || "{}") : {}; } catch (e) { defaults = {}; }
      form.querySelectorAll(".check-fields input[name^='chk.']").forEach(function (el) {
        if (el.dataset.placeholder === undefined) el.dataset.placeholder = el.placeholder;
        var name = el.name.split(".").slice(2).join(".");
        var v = defaults[name];
        el.placeholder = (v === undefined || v === null || typeof v === "object") ? el.dataset.placeholder : String(v);
      });
      showFields();
    }
    if (entrySel) { entrySel.addEventListener("change", useEntry); useEntry(); }
    function showKind() {  // only the dice box or the check's fields, as chosen
      var kind = form.querySelector("input[name=roll_kind]:checked");
      var k = kind ? kind.value : "none";
      var d = form.querySelector(".roll-dice"), c = form.querySelector(".roll-check");
      if (d) d.hidden = k !== "dice";
      if (c) c.hidden = k !== "check";
    }
    form.querySelectorAll("input[name=roll_kind]").forEach(function (el) { el.addEventListener("change", showKind); });
    showKind();
    if (box) { box.addEventListener("input", run); box.addEventListener("change", run); }
  });

  // Scene page: live updates through the server-sent event stream.
  var live = document.getElementById("live");
  if (live && window.EventSource) {
    var refresh = debounce(function () {
      fetch(live.dataset.story, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : null; }).then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("story"), old = document.getElementById("story");
        if (fresh && old && fresh.dataset.last !== old.dataset.last) {
          old.replaceWith(fresh);
          live.textContent = "New posts arrived.";
        }
      }).catch(function () {});
    }, 300);
    var es = new EventSource(live.dataset.events);
    es.addEventListener("post", refresh);
    es.addEventListener("scene", refresh);
    window.addEventListener("beforeunload", function () { es.close(); });
  }

  document.querySelectorAll("[data-print]").forEach(function (b) { b.addEventListener("click", function () { window.print(); }); });
  document.querySelectorAll("input[data-copy]").forEach(function (el) { el.addEventListener("focus", function () { el.select(); }); });
})();
