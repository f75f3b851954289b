// The live table: one EventSource on /t/<code>/events. Each message is the whole page's
// data; the browser reconnects by itself (Last-Event-ID is the log's seq) and the server
// answers a new connection with the current state at once. Text only via textContent:
// names and words come from players' messages.
(function () {
  "use strict";
  var script = document.currentScript;
  var url = script && script.getAttribute("data-events");
  if (!url || !window.EventSource) return;
  // The page's words in the game's language, from the template.
  var waiting = script.getAttribute("data-waiting");
  var anyone = script.getAttribute("data-anyone");

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function fill(id, nodes) {
    var box = document.getElementById(id);
    if (!box) return;
    // Not replaceChildren: older TV browsers lack it.
    while (box.firstChild) box.removeChild(box.firstChild);
    nodes.forEach(function (node) { box.appendChild(node); });
  }

  // The board is generic: label -> text, list, or label -> text table (no game's own code).
  function value(v) {
    if (Array.isArray(v)) {
      var ul = el("ul", null, "items");
      v.forEach(function (x) { ul.appendChild(el("li", x)); });
      return ul;
    }
    if (v !== null && typeof v === "object") {
      var table = el("table", null, "rows");
      Object.keys(v).forEach(function (k) {
        var tr = el("tr");
        tr.appendChild(el("th", k));
        tr.appendChild(el("td", v[k]));
        table.appendChild(tr);
      });
      return table;
    }
    return document.createTextNode(String(v));
  }

  function render(page) {
    document.getElementById("prompt").textContent = page.prompt || waiting;
    fill("players", page.players.map(function (p) {
      return el("li", p.name, p.acting ? "acting" : "");
    }));
    document.getElementById("to-act").textContent = page.to_act.join(", ") || (page.running ? anyone : "—");
    var board = [];
    Object.keys(page.board).forEach(function (label) {
      board.push(el("dt", (page.labels && page.labels[label]) || label));
      var dd = el("dd");
      dd.appendChild(value(page.board[label]));
      board.push(dd);
    });
    fill("board", board);
    fill("rulings", page.rulings.map(function (lines) {
      var li = el("li");
      lines.forEach(function (line) { li.appendChild(el("p", line)); });
      return li;
    }));
  }

  var link = document.getElementById("link");
  function connect() {
    var source = new EventSource(url);
    source.addEventListener("table", function (e) { render(JSON.parse(e.data)); });
    source.onopen = function () { link.className = "link up"; };
    source.onerror = function () {
      link.className = "link down";
      // The browser retries a dropped stream by itself, but gives up on an error answer
      // (a proxy's 502 while the server restarts): then start again, a little later.
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
    };
  }
  connect();
})();
