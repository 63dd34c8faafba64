/* cbalgebra poset viewer: pan, zoom, search, and "what does this cover".
 * Written for this page; no libraries, no network. */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("poset-data").textContent);
  var viewport = document.getElementById("viewport");
  var svg = viewport.querySelector("svg");
  var scene = svg.querySelector(".scene");
  var search = document.getElementById("search");
  var matchesOut = document.getElementById("matches");
  var info = document.getElementById("info");

  var nodes = {};   // data-id -> node group element
  Array.prototype.forEach.call(svg.querySelectorAll("g.node"), function (g) {
    nodes[g.getAttribute("data-id")] = g;
  });
  var edges = Array.prototype.slice.call(svg.querySelectorAll("path.edge"));

  /* ------------------------------------------------------------ pan & zoom */
  var view = { s: 1, x: 0, y: 0 };
  var MIN_SCALE = 0.02, MAX_SCALE = 8;

  function apply() {
    scene.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.s + ")");
  }

  function fit() {
    var w = viewport.clientWidth, h = viewport.clientHeight;
    var s = Math.min(w / data.width, h / data.height, 1);
    s = Math.max(s, MIN_SCALE);
    view.s = s;
    view.x = (w - data.width * s) / 2;
    view.y = Math.max(0, (h - data.height * s) / 2);
    apply();
  }

  function zoomAt(px, py, factor) {
    var s = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.s * factor));
    var wx = (px - view.x) / view.s, wy = (py - view.y) / view.s;
    view.s = s;
    view.x = px - wx * s;
    view.y = py - wy * s;
    apply();
  }

  function centerOn(id) {
    var g = nodes[id];
    if (!g) return;
    var t = g.transform.baseVal.consolidate();
    var m = t ? t.matrix : { e: 0, f: 0 };
    if (view.s < 0.6) view.s = 0.9;
    view.x = viewport.clientWidth / 2 - m.e * view.s;
    view.y = viewport.clientHeight / 2 - m.f * view.s;
    apply();
    g.classList.remove("flash");
    void g.getBoundingClientRect();
    g.classList.add("flash");
  }

  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect();
    zoomAt(ev.clientX - r.left, ev.clientY - r.top, Math.exp(-ev.deltaY * 0.0015));
  }, { passive: false });

  var drag = null, dragged = false;
  svg.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, id: ev.pointerId };
    dragged = false;
  });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!dragged && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!dragged) {
      dragged = true;
      viewport.classList.add("dragging");
    }
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    apply();
  });
  window.addEventListener("pointerup", function () {
    drag = null;
    viewport.classList.remove("dragging");
  });

  /* ------------------------------------------------------------ selection */
  var selected = null;

  function coveredBy(id) {
    // Everything the element covers: its descendants along the Hasse edges.
    var seen = {}, out = [], stack = (data.nodes[id].succ || []).slice();
    while (stack.length) {
      var n = stack.pop();
      if (seen[n]) continue;
      seen[n] = true;
      out.push(n);
      Array.prototype.push.apply(stack, data.nodes[n].succ || []);
    }
    return out;
  }

  function clearClasses() {
    Object.keys(nodes).forEach(function (k) {
      nodes[k].classList.remove("selected", "covered", "faded");
    });
    edges.forEach(function (e) { e.classList.remove("hl", "faded"); });
  }

  function select(id) {
    if (!data.nodes[id]) return [];
    clearClasses();
    selected = id;
    var covered = coveredBy(id);
    var inSet = {};
    inSet[id] = true;
    covered.forEach(function (n) { inSet[n] = true; });
    Object.keys(nodes).forEach(function (k) {
      if (k === id) nodes[k].classList.add("selected");
      else if (inSet[k]) nodes[k].classList.add("covered");
      else nodes[k].classList.add("faded");
    });
    edges.forEach(function (e) {
      e.classList.add(inSet[e.getAttribute("data-from")] ? "hl" : "faded");
    });
    showInfo(id, covered.length);
    return covered;
  }

  function clear() {
    selected = null;
    clearClasses();
    info.hidden = true;
    applySearch();
  }

  function text(el, s) { el.textContent = s; return el; }

  function listOf(title, ids) {
    var frag = document.createDocumentFragment();
    frag.appendChild(text(document.createElement("h2"), title + " (" + ids.length + ")"));
    if (!ids.length) return frag;
    var ul = document.createElement("ul");
    ids.slice(0, 50).forEach(function (n) {
      var li = text(document.createElement("li"), data.nodes[n].text);
      li.addEventListener("click", function () { select(n); centerOn(n); });
      ul.appendChild(li);
    });
    if (ids.length > 50) ul.appendChild(text(document.createElement("li"), "… " + (ids.length - 50) + " more"));
    frag.appendChild(ul);
    return frag;
  }

  function showInfo(id, coveredDrawn) {
    var d = data.nodes[id];
    info.innerHTML = "";
    var close = text(document.createElement("button"), "×");
    close.className = "close";
    close.title = "Clear the selection (Esc)";
    close.addEventListener("click", clear);
    info.appendChild(close);
    info.appendChild(text(document.createElement("h2"), d.root ? "Root element (level 0)" : "Element at level " + d.level));
    var v = text(document.createElement("div"), d.text);
    v.className = "value";
    info.appendChild(v);
    if (d.equivalents && d.equivalents.length) {
      info.appendChild(text(document.createElement("h2"), "Also inserted as"));
      d.equivalents.forEach(function (t) {
        var e = text(document.createElement("div"), t);
        e.className = "value";
        info.appendChild(e);
      });
    }
    info.appendChild(text(document.createElement("h2"), "Subscribers (" + d.subscribers.length + ")"));
    info.appendChild(text(document.createElement("div"), d.subscribers.join(", ")));
    var covers = text(document.createElement("p"), "Covers " + d.covers + " element" + (d.covers === 1 ? "" : "s") +
      (d.covers !== coveredDrawn ? " (" + coveredDrawn + " drawn)" : "") + ", highlighted.");
    info.appendChild(covers);
    info.appendChild(listOf("Immediate predecessors", d.pred || []));
    info.appendChild(listOf("Immediate successors", d.succ || []));
    info.hidden = false;
  }

  svg.addEventListener("click", function (ev) {
    if (dragged) { dragged = false; return; }
    var g = ev.target.closest ? ev.target.closest("g.node") : null;
    if (g) select(g.getAttribute("data-id"));
    else clear();
  });

  /* ------------------------------------------------------------ search */
  var matchList = [], matchIndex = -1;

  function applySearch() {
    var q = search.value.trim().toLowerCase();
    matchList = [];
    matchIndex = -1;
    Object.keys(nodes).forEach(function (k) {
      var hit = q !== "" && data.nodes[k].search.indexOf(q) >= 0;
      nodes[k].classList.toggle("match", hit);
      if (hit) matchList.push(k);
      if (selected === null) nodes[k].classList.toggle("faded", q !== "" && !hit);
    });
    if (selected === null) edges.forEach(function (e) { e.classList.toggle("faded", q !== ""); });
    matchesOut.textContent = q === "" ? "" : matchList.length + " match" + (matchList.length === 1 ? "" : "es");
  }

  search.addEventListener("input", applySearch);
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && matchList.length) {
      matchIndex = (matchIndex + 1) % matchList.length;
      centerOn(matchList[matchIndex]);
      matchesOut.textContent = (matchIndex + 1) + " of " + matchList.length;
      ev.preventDefault();
    } else if (ev.key === "Escape") {
      search.value = "";
      applySearch();
      search.blur();
    }
  });

  /* ------------------------------------------------------------ buttons & keys */
  function center() { return [viewport.clientWidth / 2, viewport.clientHeight / 2]; }
  document.getElementById("zoom-in").addEventListener("click", function () { var c = center(); zoomAt(c[0], c[1], 1.25); });
  document.getElementById("zoom-out").addEventListener("click", function () { var c = center(); zoomAt(c[0], c[1], 0.8); });
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("clear").addEventListener("click", function () { search.value = ""; clear(); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target === search) return;
    if (ev.key === "/") { search.focus(); ev.preventDefault(); }
    else if (ev.key === "Escape") clear();
    else if (ev.key === "+" || ev.key === "=") { var c = center(); zoomAt(c[0], c[1], 1.25); }
    else if (ev.key === "-") { var c2 = center(); zoomAt(c2[0], c2[1], 0.8); }
    else if (ev.key === "0") fit();
  });
  window.addEventListener("resize", fit);

  fit();

  /* For scripts and tests: the same operations a person performs. */
  window.posetView = {
    select: select,
    clear: clear,
    fit: fit,
    zoomAt: zoomAt,
    centerOn: centerOn,
    selected: function () { return selected; },
    highlighted: function () {
      return Object.keys(nodes).filter(function (k) { return nodes[k].classList.contains("covered"); });
    },
    matches: function () { return matchList.slice(); },
    transform: function () { return { s: view.s, x: view.x, y: view.y }; }
  };
})();
