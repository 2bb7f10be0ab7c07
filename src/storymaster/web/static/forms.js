// Storymaster forms made from the rules' models: rows added and removed in place, the builder's running
// check with each problem shown at its field. Without this file every button submits and the server does it.
(function () {
  "use strict";
  function debounce(fn, ms) { var t; return function () { clearTimeout(t); t = setTimeout(fn, ms); }; }
  function idOf(name) { return "f-" + name.replace(/[^A-Za-z0-9_-]/g, "-"); }
  function changed(el) { el.dispatchEvent(new Event("input", { bubbles: true })); }
  function renumber(list) {
    var n = 0;
    Array.prototype.forEach.call(list.children, function (row) {
      if (!row.matches("fieldset.row")) return;
      n += 1;
      var legend = row.querySelector("legend");
      if (legend) legend.textContent = legend.textContent.replace(/\s*\d*\s*$/, "") + " " + n;
    });
  }
  function withIndex(html, name, prefix, index) {
    var rel = name.slice(prefix.length + 1);
    var swaps = [[name + ".__row__", name + "." + index], [":" + rel + ".__row__", ":" + rel + "." + index],
      [idOf(name) + "-__row__", idOf(name) + "-" + index]];
    swaps.forEach(function (s) { html = html.split(s[0]).join(s[1]); });
    return html;
  }
  function toggles(root) {
    root.querySelectorAll("input[data-toggles]").forEach(function (box) {
      var body = document.getElementById(box.dataset.toggles);
      function show() { if (body) { body.hidden = !box.checked; } }
      box.addEventListener("change", show); show();
    });
  }

  document.addEventListener("click", function (ev) {
    var add = ev.target.closest("[data-add-row]");
    var remove = ev.target.closest("[data-remove-row]");
    if (!add && !remove) return;
    var form = ev.target.closest("form");
    var prefix = (form && form.dataset.prefix) || "f";
    ev.preventDefault();
    if (add) {
      var name = add.dataset.addRow;
      var box = add.closest("fieldset.rows");
      var tpl = box.querySelector("template[data-row-template='" + name + "']");
      var list = box.querySelector(".row-list");
      var next = parseInt(box.dataset.next || "0", 10);
      box.dataset.next = String(next + 1);
      var holder = document.createElement("div");
      holder.innerHTML = withIndex(tpl.innerHTML, name, box.closest("[data-prefix]") ? box.closest("[data-prefix]").dataset.prefix : prefix, next);
      var row = holder.firstElementChild;
      list.appendChild(row);
      renumber(list);
      toggles(row);
      var first = row.querySelector("input:not([type=hidden]), select, textarea");
      if (first) first.focus();
      changed(list);
    } else {
      var r = remove.closest("fieldset.row");
      var lst = r.parentElement;
      var back = r.closest("fieldset.rows").querySelector("[data-add-row]");
      r.remove();
      renumber(lst);
      if (back) back.focus();
      changed(lst);
    }
  });

  toggles(document);

  // The builder: check the sheet as it is typed; the summary and each field's problems follow.
  document.querySelectorAll("form[data-builder]").forEach(function (form) {
    function csrf() { var f = form.querySelector("input[name=csrf]"); return f ? f.value : ""; }
    function mark(problems) {
      form.querySelectorAll(".field-problem").forEach(function (el) { el.remove(); });
      form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
      form.querySelectorAll(".has-problem").forEach(function (el) { el.classList.remove("has-problem"); });
      Object.keys(problems || {}).forEach(function (name) {
        if (!name) return;
        var holder = form.querySelector("[data-field='" + name + "'], [data-row='" + name + "'], [data-rows='" + name + "']");
        if (!holder) return;
        var span = document.createElement("span");
        span.className = "field-problem"; span.id = idOf(name) + "-problem";
        span.textContent = "✖ " + problems[name].join("; ");
        holder.classList.add("has-problem");
        var ctl = document.getElementById(idOf(name));
        if (ctl && ctl.matches("input, select, textarea")) {
          ctl.setAttribute("aria-invalid", "true");
          var was = (ctl.getAttribute("aria-describedby") || "").split(" ").filter(function (x) { return x && x !== span.id; });
          was.push(span.id); ctl.setAttribute("aria-describedby", was.join(" "));
          ctl.closest(".field").appendChild(span);
        } else {
          var legend = holder.querySelector("legend");
          if (legend) legend.insertAdjacentElement("afterend", span); else holder.appendChild(span);
        }
      });
    }
    var run = debounce(function () {
      var data = new FormData(form);
      fetch(form.dataset.builder, { method: "POST", body: data, credentials: "same-origin",
        headers: { "Accept": "application/json", "X-CSRF-Token": csrf() } })
        .then(function (r) { return r.json(); }).then(function (j) {
          if (!j.html) return;
          var old = document.getElementById("report");
          var box = document.createElement("div"); box.innerHTML = j.html;
          old.replaceWith(box.firstElementChild);
          mark(j.field_problems);
        }).catch(function () {});
    }, 350);
    form.addEventListener("input", run);
    form.addEventListener("change", run);
  });
  // The composer: a character's check takes from the sheet what the sheet holds (those fields hide), an opponent
  // from the scene takes the opposition's fields, and the list shows the speaking character's checks.
  document.querySelectorAll("form[data-preview]").forEach(function (form) {
    var entrySel = form.querySelector("[name=check_entry]");
    var speaker = form.querySelector("[name=character]");
    function sync() {
      var opt = entrySel ? entrySel.options[entrySel.selectedIndex] : null;
      var kind = opt && opt.dataset.check;
      var fromSheet = ((opt && opt.dataset.fromSheet) || "").split(" ").filter(Boolean);
      form.querySelectorAll(".check-fields").forEach(function (fs) {
        var prefix = fs.dataset.prefix || "";
        var opp = fs.querySelector("select[data-opponent-of]");
        var oppField = opp && opp.value ? opp.dataset.opponentOf : "";
        var holder = fs.querySelector(".check-controls");
        if (!holder) return;
        Array.prototype.forEach.call(holder.children, function (el) {
          var name = el.dataset.field || el.dataset.rows || "";
          if (!name) return;
          var own = name.slice(prefix.length + 1);
          var hide = (fs.dataset.checkType === kind && fromSheet.indexOf(own) >= 0) || name === oppField;
          el.hidden = hide;
          el.querySelectorAll("input, select, textarea, button").forEach(function (x) { x.disabled = hide; });
        });
      });
    }
    function speakerChecks() {
      if (!entrySel || !speaker) return;
      var who = speaker.value;
      Array.prototype.forEach.call(entrySel.querySelectorAll("option[data-character]"), function (o) {
        o.hidden = !!who && o.dataset.character !== who;
        o.disabled = o.hidden;
      });
      var cur = entrySel.options[entrySel.selectedIndex];
      if (cur && cur.hidden) { entrySel.value = ""; entrySel.dispatchEvent(new Event("change", { bubbles: true })); }
    }
    if (entrySel) entrySel.addEventListener("change", sync);
    form.querySelectorAll("select[data-opponent-of]").forEach(function (s) { s.addEventListener("change", sync); });
    var typeSel = form.querySelector("[name=check_type]");
    if (typeSel) typeSel.addEventListener("change", sync);
    if (speaker) speaker.addEventListener("change", speakerChecks);
    speakerChecks(); sync();
  });
})();
