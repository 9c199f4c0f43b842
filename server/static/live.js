// The live camera view (issue 19). The browser camera's frames go to /api/live/ws, each
// named by an id ({"frame": N} before its JPEG); each answer names the frame its card
// boxes belong to. The view shows the picture of the frame just answered, and its labels
// only when the answer says they belong to it (while a hand moves over the table the
// server keeps the cards it read before, which belong to an earlier picture): a label is
// never drawn on a card that has since changed. Start and stop; a camera picker, the rear
// camera by default on a phone. With a game, the stream is that game's camera: its answers
// carry the stable table (each seat's melds judged by the game's rules), and every other
// screen on the game watches it (/api/live/watch, `watch`). app.js builds the panel and
// calls ShanghaiLive.start, ShanghaiLive.watch and ShanghaiLive.showTable.
"use strict";

const ShanghaiLive = (() => {
  const MIN_GAP_MS = 100; // at most ten frames a second go to the server
  const REWATCH_MS = 3000; // a watch dropped (network, server restart) is opened again

  function socketUrl(path) {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}${path}`;
  }

  async function openCamera(deviceId) {
    const video = deviceId
      ? { deviceId: { exact: deviceId }, width: { ideal: 1280 } }
      : { facingMode: { ideal: "environment" }, width: { ideal: 1280 } };
    return navigator.mediaDevices.getUserMedia({ video, audio: false });
  }

  // The cameras of this device in the picker, the one in use selected; hidden when
  // there is only one.
  async function fillPicker(picker, stream) {
    if (!picker) return;
    const inUse = stream.getVideoTracks()[0]?.getSettings().deviceId;
    const cameras = (await navigator.mediaDevices.enumerateDevices())
      .filter((d) => d.kind === "videoinput");
    picker.replaceChildren(...cameras.map((camera, k) => {
      const option = document.createElement("option");
      option.value = camera.deviceId;
      option.textContent = camera.label || `Camera ${k + 1}`;
      option.selected = camera.deviceId === inUse;
      return option;
    }));
    picker.hidden = cameras.length < 2;
  }

  // `image` (the frame sent) with the boxes and labels of `update` when `labelled`.
  function draw(canvas, image, update, labelled) {
    canvas.width = image.width;
    canvas.height = image.height;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(image, 0, 0);
    const drawn = [];
    if (labelled) {
      ctx.lineWidth = Math.max(2, image.width / 320);
      ctx.font = `${Math.max(14, image.width / 45)}px system-ui`;
      for (const card of update.cards) {
        const [x1, y1, x2, y2] = card.xyxy;
        ctx.strokeStyle = "#3ddc6a";
        ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
        const label = cardLabel(card.card);
        ctx.fillStyle = "rgba(0,0,0,.7)";
        ctx.fillRect(x1, Math.max(0, y1 - 22), ctx.measureText(label).width + 8, 22);
        ctx.fillStyle = "#fff";
        ctx.fillText(label, x1 + 4, Math.max(16, y1 - 5));
        drawn.push({ card: card.card, xyxy: card.xyxy });
      }
    }
    // What is drawn, for the tests and for anyone inspecting the page.
    canvas.dataset.frame = String(update.frame);
    canvas.dataset.labels = JSON.stringify(drawn);
  }

  // parts: { video, canvas, frame (the box holding both), status, seen (stable chips),
  // start (the start/stop button), picker (a <select>, optional), deviceId (optional),
  // game and device (optional: the game this camera shows and this device's name),
  // onTable(table) (optional: each answer's stable table), onTakenOver() (optional: another
  // device streams the game now; this camera has stopped) }.
  // Resolves to the running view ({ video, stop() }), or null when no camera runs.
  async function start(parts) {
    const { video, canvas, frame, status, seen, start: button, picker } = parts;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      status.textContent = "This browser gives no camera here (the page needs localhost or HTTPS).";
      return null;
    }
    let stream;
    try {
      stream = await openCamera(parts.deviceId);
    } catch (error) {
      status.textContent = `Camera not available: ${error.message}`;
      return null;
    }
    video.srcObject = stream;
    frame.hidden = false;
    button.textContent = "Stop camera";
    fillPicker(picker, stream).catch(() => {});
    const query = parts.game
      ? `?game=${parts.game}&device=${encodeURIComponent(parts.device || "")}` : "";
    const socket = new WebSocket(socketUrl(`/api/live/ws${query}`));
    socket.binaryType = "arraybuffer";
    let nextId = 1;
    let inFlight = null; // { id, image } of the frame sent and not yet answered
    let stopped = false;

    const timer = setInterval(() => {
      if (inFlight || socket.readyState !== WebSocket.OPEN || !video.videoWidth) return;
      const image = document.createElement("canvas");
      image.width = video.videoWidth;
      image.height = video.videoHeight;
      image.getContext("2d").drawImage(video, 0, 0);
      inFlight = { id: nextId++, image };
      const sent = inFlight;
      image.toBlob((blob) => {
        if (!blob || socket.readyState !== WebSocket.OPEN) { inFlight = null; return; }
        blob.arrayBuffer().then((buffer) => {
          socket.send(JSON.stringify({ frame: sent.id }));
          socket.send(buffer);
        });
      }, "image/jpeg", 0.8);
    }, MIN_GAP_MS);

    socket.onmessage = (event) => {
      if (stopped) return; // an answer still on its way when the camera stopped
      const update = JSON.parse(event.data);
      if (update.stopped || update.reset) return;
      const sent = inFlight;
      inFlight = null;
      if (update.taken_over) { // another device streams this game now
        view.stop();
        status.textContent = `${update.error}.`;
        if (parts.onTakenOver) parts.onTakenOver();
        return;
      }
      if (update.error) {
        status.textContent = update.status === 503
          ? `${update.error}. The camera shows the table; enter cards by text or clicks below.`
          : update.error;
        return;
      }
      if (!sent) return;
      const labelled = update.frame === sent.id;
      draw(canvas, sent.image, update, labelled);
      showSeen(seen, update.stable_cards, update.stable);
      if (update.table && parts.onTable) parts.onTable(update.table);
      status.textContent = labelled
        ? `${update.cards.length} cards in view${update.stable ? " · steady" : ""}`
        : "The table is moving: waiting for it to settle.";
    };
    socket.onclose = () => clearInterval(timer);

    const view = {
      video,
      get running() { return !stopped; },
      stop() {
        if (stopped) return;
        stopped = true;
        clearInterval(timer);
        if (socket.readyState === WebSocket.OPEN) socket.send("stop");
        else socket.close();
        stream.getTracks().forEach((track) => track.stop());
        video.srcObject = null;
        frame.hidden = true;
        button.textContent = "Start camera";
        status.textContent = "This device's camera is off.";
      },
    };
    if (picker) {
      picker.onchange = () => {
        view.stop();
        if (parts.onRestart) parts.onRestart(picker.value);
      };
    }
    return view;
  }

  // Watch a game's live table: `onState` gets each /api/live/watch message ({ streaming,
  // device, table }). Returns { close() }; a dropped watch is opened again.
  function watch(gameId, onState) {
    let socket = null;
    let closed = false;
    let timer = null;
    const open = () => {
      socket = new WebSocket(socketUrl(`/api/live/watch?game=${gameId}`));
      socket.onmessage = (event) => {
        const state = JSON.parse(event.data);
        if (state.error) closed = true; // no such game: nothing to watch
        else onState(state);
      };
      socket.onclose = () => { if (!closed) timer = setTimeout(open, REWATCH_MS); };
    };
    open();
    return {
      close() {
        closed = true;
        clearTimeout(timer);
        if (socket) socket.close();
      },
    };
  }

  function chips(cards) {
    return cards.map((c) => el("span", { class: chipClass(c), text: cardLabel(c), title: cardName(c) }));
  }

  // The stable table (the server's LiveTablePublic) in `box`: each seat with cards, its
  // melds with their verdicts (worded as the dispute check words them) and its hand,
  // then the cards at no seat. `key` names what is shown (the table's version and who
  // streams it): the same key again draws nothing, so the table changes only when the
  // stable state does.
  function showTable(box, table, key) {
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    if (!table) {
      box.replaceChildren(el("p", { class: "muted", text: "Waiting for the table to hold still." }));
      return;
    }
    const seats = table.seats.filter((s) => s.melds.length || s.hand.length);
    box.replaceChildren(...[
      table.round
        ? el("p", { class: "muted", text: `Round ${table.round}${table.contract ? `: ${table.contract}` : ""}` })
        : null,
      seats.length || table.outside.length ? null : el("p", { class: "muted", text: "No cards on the table." }),
      ...seats.map((seat) => {
        const check = seat.check;
        return el("section", { class: "live-seat", "data-seat": String(seat.seat) },
          el("h3", { text: seat.player }),
          check ? el("p", { class: check.valid ? "ok" : "error", text: check.valid ? "Legal lay-down" : "Not a legal lay-down" }) : null,
          ...seat.melds.map((cards, i) => {
            const verdict = check && check.melds[i];
            const kind = verdict ? (verdict.valid ? "valid" : "invalid") : "";
            return el("div", { class: `verdict live-meld ${kind}` }, chips(cards),
              verdict ? el("span", { text: verdict.valid ? verdict.description : verdict.reasons.join("; ") }) : null);
          }),
          ...(check ? check.reasons.filter((r) => !r.startsWith("meld ")) : [])
            .map((r) => el("p", { class: "error", text: r })),
          seat.hand.length
            ? el("div", { class: "live-hand" }, el("span", { class: "muted", text: "Not in a meld:" }), chips(seat.hand))
            : null);
      }),
      table.outside.length
        ? el("div", { class: "live-hand" }, el("span", { class: "muted", text: "At no seat:" }), chips(table.outside))
        : null,
    ].filter(Boolean));
  }

  return { start, watch, showTable };
})();
