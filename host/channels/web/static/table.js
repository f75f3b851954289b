// The table screen: one EventSource on /t/<code>/events. Each message is the whole page's
// data with its regions already drawn by the server (page.html: autoescaped HTML, one
// renderer for the first page and every update); a region is only replaced when its HTML
// changed, so a screen reader hears a new ruling once. The browser reconnects by itself
// (Last-Event-ID is the log's seq) and the server answers with the current state at once.
// ES5 only: TV browsers are old.
(function () {
  "use strict";
  var script = document.currentScript;
  var url = script && script.getAttribute("data-events");
  var regions = ["turn", "scores", "board", "rulings", "last"];
  var scratch = document.createElement("div");

  function render(page) {
    var html = page.html || {};
    regions.forEach(function (id) {
      var box = document.getElementById(id);
      if (!box || typeof html[id] !== "string") return;
      scratch.innerHTML = html[id];  // as the browser writes it, to compare like with like
      if (scratch.innerHTML !== box.innerHTML) box.innerHTML = html[id];
    });
    document.body.className = "live" + (page.over ? " over" : "");
    startClock();
  }

  // The turn clock: the server says when the step runs out and what time it is there, so a
  // TV whose own clock is wrong still counts down right.
  var ticking = null;
  function startClock() {
    var clock = document.getElementById("clock");
    if (ticking) clearInterval(ticking);
    ticking = null;
    if (!clock) return;
    var ends = parseFloat(clock.getAttribute("data-ends"));
    var skew = parseFloat(clock.getAttribute("data-now")) * 1000 - Date.now();
    function tick() {
      var left = Math.max(Math.ceil((ends * 1000 - (Date.now() + skew)) / 1000), 0);
      clock.textContent = Math.floor(left / 60) + ":" + ("0" + (left % 60)).slice(-2);
      clock.className = "time" + (left <= 10 ? " low" : "");
      if (left === 0 && ticking) { clearInterval(ticking); ticking = null; }
    }
    tick();
    ticking = setInterval(tick, 250);
  }

  startClock();
  if (!url || !window.EventSource) return;

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
