// "Listen here": this device's microphone becomes the table's. The audio goes as 16 kHz
// pcm16 over a WebSocket to the host, which rules what it hears; its answers come back as
// text (shown) and WAV (played). Browsers give a microphone only to HTTPS pages (and
// localhost), and the server takes the stream only from them.
// "Check the room" streams the same way to the room check (host/channels/web/room_check.py):
// each player is asked for two numbers in turn, and the check's report is shown at the end.
(function () {
  "use strict";
  var listen = document.getElementById("listen");
  var check = document.getElementById("check");
  var status = document.getElementById("listen-status");
  var said = document.getElementById("host-said");
  var report = document.getElementById("check-report");
  if (!listen || !window.WebSocket) return;
  var running = null;

  function words(key) {  // the page's words in the table's language (web.yaml, on #listen-status)
    return status.getAttribute("data-" + key) || "";
  }

  function show(button, text, state) {
    status.textContent = text;
    button.setAttribute("data-state", state);
  }

  function Player(context, button) {
    var queue = Promise.resolve();
    var next = 0;
    this.played = 0;
    var self = this;
    this.play = function (data) {
      queue = queue.then(function () { return context.decodeAudioData(data); }).then(function (buffer) {
        var source = context.createBufferSource();
        source.buffer = buffer;
        source.connect(context.destination);
        next = Math.max(next, context.currentTime);
        source.start(next);
        next += buffer.duration;
        self.played++;
        button.setAttribute("data-played", String(self.played));
      }).catch(function () { /* an announcement that cannot play is still shown */ });
    };
  }

  function stop(text) {
    if (!running) return;
    var r = running;
    running = null;
    if (r.socket.readyState <= 1) r.socket.close();
    r.stream.getTracks().forEach(function (t) { t.stop(); });
    r.context.close();
    r.button.textContent = r.button.getAttribute("data-start");
    show(r.button, text || "", "off");
    [listen, check].forEach(function (b) { if (b) b.disabled = false; });
  }

  // The microphone to ``button``'s socket; ``onText`` gets the host's JSON frames.
  async function start(button, busy, onText) {
    if (!navigator.mediaDevices || !window.AudioWorkletNode) {
      show(button, words("insecure"), "error");
      return;
    }
    show(button, words("starting"), "starting");
    var stream, context;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false, autoGainControl: false }
      });
      context = new AudioContext();
      await context.audioWorklet.addModule("/static/web/pcm16-worklet.js");
    } catch (err) {
      // The browser's own message is in the browser's language, not the table's.
      var why = err && err.name === "NotAllowedError" ? "mic-denied"
        : err && err.name === "NotFoundError" ? "mic-missing" : "mic-failed";
      show(button, words(why), "error");
      console.warn("microphone:", err);  // the browser's own words, for whoever debugs
      return;
    }
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    var socket = new WebSocket(scheme + "//" + location.host + button.getAttribute("data-url"));
    socket.binaryType = "arraybuffer";
    var node = new AudioWorkletNode(context, "pcm16");
    var player = new Player(context, button);
    // Speech said while the host loads its recogniser is kept and sent when it is ready,
    // so the first move is not lost, and all of it (up to a minute of 40 ms frames, what
    // the host keeps waiting: listen.py MAX_BEHIND_S), so the stream keeps the room's time.
    var pending = [], ready = false;
    node.port.onmessage = function (f) {
      if (ready && socket.readyState === 1) socket.send(f.data);
      else if (!ready && pending.length < 1500) pending.push(f.data);
    };
    context.createMediaStreamSource(stream).connect(node);
    node.connect(context.destination);  // pulls the worklet; it writes silence
    running = { socket: socket, stream: stream, context: context, button: button };
    button.textContent = button.getAttribute("data-stop");
    [listen, check].forEach(function (b) { if (b && b !== button) b.disabled = true; });
    socket.onmessage = function (e) {
      if (typeof e.data !== "string") { player.play(e.data); return; }
      var m = JSON.parse(e.data);
      if (m.type === "ready") {
        ready = true;
        pending.forEach(function (f) { socket.send(f); });
        pending = [];
        show(button, busy, "on");
      } else if (m.type === "error") {  // the host's words, or the page's for ``key``
        var text = m.text || words(m.key);
        stop(text);
        show(button, text, "error");
      } else {
        onText(m);
      }
    };
    socket.onclose = function () { if (running && running.socket === socket) stop(onText.closed); };
  }

  function asked(m) {  // "Ann, say your name." / "Ann, say two numbers, ..."
    said.textContent = m.lines.join(" ");
    said.setAttribute("data-asked", m.player);
  }

  function onListen(m) {
    if (m.type === "reply") {
      said.textContent = (m.speaker ? "(" + m.speaker + ") " : "") + m.lines.join(" ");  // whose voice
      if (m.speaker) said.setAttribute("data-speaker", m.speaker);
      else said.removeAttribute("data-speaker");
    } else if (m.type === "name") {  // the name round
      asked(m);
    }
  }
  onListen.closed = status.getAttribute("data-closed");

  function onCheck(m) {
    if (m.type === "turn") {
      asked(m);
    } else if (m.type === "report") {  // the check's lines, as `gamehost table --check` prints them
      report.textContent = "";
      m.lines.forEach(function (line) {
        var item = document.createElement("li");
        item.textContent = line;
        report.appendChild(item);
      });
      report.hidden = false;
      said.textContent = "";
      said.removeAttribute("data-asked");
      stop(status.getAttribute("data-checked"));
    }
  }
  onCheck.closed = status.getAttribute("data-closed");

  listen.addEventListener("click", function () {
    if (running) stop(); else start(listen, status.getAttribute("data-listening"), onListen);
  });
  if (check) {
    check.addEventListener("click", function () {
      if (running) { stop(); return; }
      report.hidden = true;
      start(check, status.getAttribute("data-checking"), onCheck);
    });
  }
})();
