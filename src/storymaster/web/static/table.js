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

    var asked = 0;  // only the newest request's answer is shown: an older one may arrive after it
    var run = debounce(function () {
      var mine = ++asked;
      post(form.dataset.check, form).then(function (r) { return r.json(); }).then(function (j) {
        if (mine !== asked || !j.html) return;
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
    var asked = 0;  // only the newest preview is shown: under load an older answer may arrive after it
    var run = debounce(function () {
      var mine = ++asked;
      var kind = form.querySelector("input[name=roll_kind]:checked");
      if (!kind || kind.value === "none") { document.getElementById("odds").innerHTML = ""; return; }
      post(form.dataset.preview, form).then(function (r) { return r.json(); }).then(function (j) {
        if (mine !== asked) return;
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

  // Deadlines: the page says the absolute time (UTC, or the reader's chosen zone); with scripts, the
  // browser's own zone and a countdown.
  function countdown(el) {
    var when = new Date(el.getAttribute("datetime"));
    if (isNaN(when)) return;
    var left = Math.round((when - new Date()) / 60000), text;
    if (left <= 0) { text = "passed"; }
    else if (left < 60) { text = "in " + left + " min"; }
    else if (left < 48 * 60) { text = "in " + Math.floor(left / 60) + " h " + (left % 60) + " min"; }
    else { text = "in " + Math.floor(left / 1440) + " days"; }
    var local = when.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    el.textContent = local + " (" + text + ")";
    el.title = el.getAttribute("datetime");
  }
  function countdowns(root) { (root || document).querySelectorAll("time[data-countdown]").forEach(countdown); }
  countdowns();
  setInterval(countdowns, 30000);

  // Composer: readers make a post private (and it says so); the draft kept in this browser while typing;
  // each inline roll's exact odds while typing. Without JavaScript the server says the same on posting.
  document.querySelectorAll("form[data-draft-key]").forEach(function (form) {
    var text = form.querySelector("textarea[name=text]");
    var note = document.getElementById("private-note");
    var readers = form.querySelectorAll("input[name=to]");
    function kindEl(v) { return form.querySelector("input[name=kind][value=" + v + "]"); }
    function sayReaders() {
      var names = [];
      readers.forEach(function (r) { if (r.checked) names.push(r.dataset.name); });
      var priv = kindEl("private");
      if (names.length && priv && !priv.checked) priv.checked = true;
      if (!note) return;
      if (names.length) note.textContent = "This post is private: only " + names.join(", ") + " and you read it.";
      else if (priv && priv.checked) note.textContent = "A private post needs at least one reader: choose them above, or pick another kind.";
      else note.textContent = "Nobody chosen: everyone in the campaign reads the post.";
    }
    readers.forEach(function (r) { r.addEventListener("change", sayReaders); });
    form.querySelectorAll("input[name=kind]").forEach(function (k) {
      k.addEventListener("change", function () {
        if (k.checked && k.value !== "private") readers.forEach(function (r) { r.checked = false; });
        sayReaders();
      });
    });
    sayReaders();

    var key = form.dataset.draftKey, store = null;
    try { store = window.localStorage; } catch (e) { store = null; }
    var draftNote = document.getElementById("draft-note");
    var refused = !!document.getElementById("post-error");
    if (store && text) {
      try {
        if (window.sessionStorage.getItem(key + ":sent") && !refused) store.removeItem(key);
        window.sessionStorage.removeItem(key + ":sent");
      } catch (e) { /* private mode */ }
      var saved = null;
      try { saved = JSON.parse(store.getItem(key) || "null"); } catch (e) { saved = null; }
      if (saved && saved.text && !text.value) {
        text.value = saved.text;
        if (draftNote) {
          draftNote.textContent = "Your unsent draft is back (kept in this browser). ";
          var discard = document.createElement("button");
          discard.type = "button"; discard.className = "secondary"; discard.textContent = "Discard it";
          discard.addEventListener("click", function () { text.value = ""; store.removeItem(key); draftNote.textContent = "Draft discarded."; });
          draftNote.appendChild(discard);
        }
      }
      var save = debounce(function () {
        try {
          if (text.value.trim()) store.setItem(key, JSON.stringify({ text: text.value, at: new Date().toISOString() }));
          else store.removeItem(key);
        } catch (e) { /* full or private */ }
      }, 300);
      text.addEventListener("input", save);
      form.addEventListener("submit", function (ev) {
        var action = ev.submitter && ev.submitter.value;
        if (action !== "preview" && action !== "odds") { try { window.sessionStorage.setItem(key + ":sent", "1"); } catch (e) { /* ignore */ } }
      });
    }

    // "Quote": without JavaScript the link opens the composer with the quote; with it, the quote is added to the draft
    document.addEventListener("click", function (ev) {
      var link = ev.target.closest && ev.target.closest("a.quote-link");
      if (!link || !text) return;
      ev.preventDefault();
      fetch(link.href, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : null; }).then(function (html) {
        if (!html) { window.location = link.href; return; }
        var got = new DOMParser().parseFromString(html, "text/html").querySelector("form.composer textarea[name=text]");
        if (!got) return;
        text.value = (text.value.trim() ? text.value.replace(/\s*$/, "\n\n") : "") + got.value;
        text.dispatchEvent(new Event("input"));
        text.focus();
        text.scrollIntoView({ block: "center" });
      }).catch(function () { window.location = link.href; });
    });

    // the small toolbar (hidden without JavaScript; the help below says the same): insert at the cursor
    var tools = form.querySelector(".text-tools");
    if (tools && text) {
      tools.hidden = false;
      tools.querySelectorAll("button[data-insert]").forEach(function (b) {
        b.addEventListener("click", function () {
          var ins = b.dataset.insert, at = text.selectionStart, end = text.selectionEnd;
          text.value = text.value.slice(0, at) + ins + text.value.slice(end);
          text.focus();
          var sel = b.dataset.select ? ins.indexOf(b.dataset.select) : -1;
          if (sel >= 0) text.setSelectionRange(at + sel, at + sel + b.dataset.select.length);
          else { var c = at + Number(b.dataset.cursor || ins.length); text.setSelectionRange(c, c); }
          text.dispatchEvent(new Event("input"));
        });
      });
    }

    var box = document.getElementById("inline-odds");
    if (text && box && form.dataset.inlineOdds) {
      var asked = 0;  // only the newest answer is shown
      var odds = debounce(function () {
        var mine = ++asked;
        if (!/\[\[|\[roll|^\s*\/r/im.test(text.value)) { box.innerHTML = ""; return; }
        fetch(form.dataset.inlineOdds, { method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrfOf(form) },
          body: JSON.stringify({ text: text.value }) }).then(function (r) { return r.json(); }).then(function (j) {
          if (mine !== asked) return;
          box.innerHTML = "";
          if (j.error) { var p = document.createElement("p"); p.className = "alert"; p.textContent = "Not yet a roll: " + j.error; box.appendChild(p); return; }
          var ul = document.createElement("ul");
          (j.rolls || []).forEach(function (r) {
            var li = document.createElement("li");
            var o = r.odds;
            li.textContent = "Roll " + r.n + (r.label ? " (" + r.label + ")" : "") + ": " + r.dice + " gives " + o.min + " to " + o.max +
              ", average " + o.mean.toFixed(2) + (r.visibility !== "public" ? "; result seen: " + r.visibility : "");
            var d = document.createElement("details"), sm = document.createElement("summary");
            sm.textContent = "exact odds"; d.appendChild(sm);
            var chart = document.createElement("div"); chart.innerHTML = r.chart_svg; d.appendChild(chart);
            li.appendChild(d); ul.appendChild(li);
          });
          box.appendChild(ul);
        }).catch(function () {});
      }, 450);
      text.addEventListener("input", odds);
      odds();
    }
  });

  // Scene page: live updates. The stream sends only what changed (each post or turn event with its
  // markup, then the scene with its turn box); the page swaps those pieces in place.
  var live = document.getElementById("live");
  var story = document.getElementById("story");
  if (live && story && window.EventSource) {
    var csrfField = document.querySelector("input[name=csrf]");
    var csrf = csrfField ? csrfField.value : "";
    var baseTitle = document.title, unseen = 0;
    var piece = function (html) {
      var box = document.createElement("div"); box.innerHTML = html;
      var el = box.firstElementChild;
      if (!el) return null;
      el.querySelectorAll("input[name=csrf]").forEach(function (i) { i.value = csrf; });
      countdowns(el);
      return el;
    };
    var place = function (data) {
      if (!data.html) return;
      var el = piece(data.html);
      if (!el) return;
      var old = document.getElementById(el.id);
      if (old) { old.replaceWith(el); return; }
      if (story.dataset.newest !== "1") { live.textContent = "New posts arrived: see the newest posts."; return; }
      var list = story.querySelector(".posts");
      var none = list.querySelector(".none");
      if (none) none.remove();
      list.appendChild(el);
      if (data.type === "post") {
        story.dataset.last = data.id;
        live.textContent = "New post from " + (data.character_name || "the table") + ".";
        if (document.hidden) { unseen += 1; document.title = "(" + unseen + ") " + baseTitle; }
      }
    };
    var es = new EventSource(live.dataset.events);
    es.addEventListener("post", function (ev) { place(JSON.parse(ev.data)); });
    es.addEventListener("event", function (ev) { place(JSON.parse(ev.data)); });
    es.addEventListener("scene", function (ev) {
      var d = JSON.parse(ev.data);
      if (d.turn_html === undefined) return;
      var old = document.getElementById("turn"), el = d.turn_html ? piece(d.turn_html) : null;
      if (old && el) old.replaceWith(el);
    });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) { unseen = 0; document.title = baseTitle; }
    });
    window.addEventListener("beforeunload", function () { es.close(); });
  }

  document.querySelectorAll("[data-print]").forEach(function (b) { b.addEventListener("click", function () { window.print(); }); });
  document.querySelectorAll("input[data-copy]").forEach(function (el) { el.addEventListener("focus", function () { el.select(); }); });
})();
