// The live camera view (issue 19). The browser camera's frames go to /api/live/ws, each
// named by an id ({"frame": N} before its JPEG); each answer names the frame its card
// boxes belong to. The view shows the picture of the frame just answered, and its labels
// only when the answer says they belong to it (while a hand moves over the table the
// server keeps the cards it read before, which belong to an earlier picture): a label is
// never drawn on a card that has since changed. Start and stop; a camera picker, the rear
// camera by default on a phone. app.js builds the panel and calls ShanghaiLive.start.
"use strict";

const ShanghaiLive = (() => {
  const MIN_GAP_MS = 100; // at most ten frames a second go to the server

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
  // start (the start/stop button), picker (a <select>, optional), deviceId (optional) }.
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
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/live/ws`);
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
      const update = JSON.parse(event.data);
      if (update.stopped || update.reset) return;
      const sent = inFlight;
      inFlight = null;
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
      status.textContent = labelled
        ? `${update.cards.length} cards in view${update.stable ? " · steady" : ""}`
        : "The table is moving: waiting for it to settle.";
    };
    socket.onclose = () => clearInterval(timer);

    const view = {
      video,
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
        status.textContent = "Camera off.";
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

  return { start };
})();
