// Shanghai table companion: the page. Plain JavaScript, no build step, no CDN.
// Views (hash routes): #/ new game and games; #/games/ID the table; #/games/ID/sheet.
"use strict";

const app = document.getElementById("app");
let live = null; // the running live view (camera, websocket, timers), stopped on navigation

// ---- helpers ---------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body instanceof FormData) options.body = body;
  else if (body !== undefined) {
    options.body = JSON.stringify(body);
    options.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  // The table code is missing or has changed: the page itself then asks for it.
  if (response.status === 401 && response.headers.get("WWW-Authenticate") === "X-Table-Code") {
    location.reload();
  }
  const data = await response.json().catch(() => ({ detail: response.statusText }));
  if (!response.ok) {
    const detail = Array.isArray(data.detail)
      ? data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ")
      : data.detail;
    const error = new Error(detail || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), 4000);
}

const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
function cardLabel(card) {
  const suit = card.slice(-1);
  return SUIT_SYMBOL[suit] ? card.slice(0, -1) + SUIT_SYMBOL[suit] : card;
}
function isRed(card) {
  return /[dhR]$/.test(card);
}
function splitCards(text) {
  return text.replace(/,/g, " ").split(/\s+/).filter(Boolean);
}

// What a scan says must be checked (`warnings` of a scan or a dispute photo), shown plainly;
// nothing at all when there is nothing to check.
function warningBox(warnings, title) {
  if (!warnings || !warnings.length) return null;
  return el("div", { class: "warnings", role: "status" },
    el("strong", { text: title }),
    el("ul", {}, warnings.map((w) => el("li", { "data-code": w.code, text: w.message }))));
}

function busyLine() {
  return el("p", { class: "busy", role: "status", text: "Reading the cards…" });
}

// A still of the browser camera (JPEG), or null when the camera is not running.
// A photo input and the live camera feed one `send(blob, source)`: the input sends each
// photo chosen (the same one again is a new scan); the returned handler sends the live
// frame, or says to start the camera.
function photoSources(photo, send, message, noCamera) {
  photo.addEventListener("change", () => {
    if (photo.files.length) send(photo.files[0], "upload");
    photo.value = "";
  });
  return async () => {
    const blob = await liveFrame();
    if (blob) send(blob, "live");
    else message.textContent = noCamera;
  };
}

function liveFrame() {
  const video = live && live.video;
  if (!video || !video.videoWidth) return Promise.resolve(null);
  const grab = document.createElement("canvas");
  grab.width = video.videoWidth;
  grab.height = video.videoHeight;
  grab.getContext("2d").drawImage(video, 0, 0);
  return new Promise((resolve) => grab.toBlob(resolve, "image/jpeg", 0.9));
}

function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function deckFor(family) {
  if (family === "rook") {
    const cards = [];
    for (const colour of ["B", "R", "Y", "G"]) for (let n = 1; n <= 14; n++) cards.push(`${n}${colour}`);
    return [...cards, "ROOK"];
  }
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const cards = [];
  for (const suit of ["c", "d", "h", "s"]) for (const rank of ranks) cards.push(rank + suit);
  return [...cards, "JK"];
}

// ---- routing ---------------------------------------------------------------------------

function stopLive() {
  if (!live) return;
  live.stop();
  live = null;
}

async function route() {
  stopLive();
  const hash = location.hash || "#/";
  const sheet = hash.match(/^#\/games\/(\d+)\/sheet$/);
  const game = hash.match(/^#\/games\/(\d+)$/);
  const nav = document.getElementById("game-nav");
  nav.hidden = !(sheet || game);
  try {
    if (sheet) {
      setNav(sheet[1]);
      await showSheet(Number(sheet[1]));
    } else if (game) {
      setNav(game[1]);
      await showTable(Number(game[1]));
    } else await showHome();
  } catch (error) {
    app.replaceChildren(el("section", { class: "panel" }, el("p", { class: "error", text: error.message }),
      el("a", { href: "#/", text: "Back to the games" })));
  }
}

function setNav(id) {
  document.getElementById("nav-table").href = `#/games/${id}`;
  document.getElementById("nav-sheet").href = `#/games/${id}/sheet`;
}

window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", route);

// ---- home: new game, games -------------------------------------------------------------

async function showHome() {
  const [variants, games, table] = await Promise.all(
    [api("GET", "/api/variants"), api("GET", "/api/games"), api("GET", "/api/table")]);
  const select = el("select", { id: "variant" },
    variants.map((v) => el("option", { value: v.name, text: `${v.title} (${v.min_players}-${v.max_players} players)` })));
  const houseFile = el("input", { type: "file", id: "house-file", accept: ".toml,text/plain" });
  const target = el("input", { type: "number", id: "target", min: "1", placeholder: "the variant's" });
  const targetRow = el("div", { id: "target-row" }, el("label", { for: "target", text: "Target score" }), target);
  const syncTarget = () => {
    const chosen = variants.find((v) => v.name === select.value);
    targetRow.hidden = !(chosen && chosen.target_score);
    if (chosen && chosen.target_score) target.placeholder = String(chosen.target_score);
  };
  select.addEventListener("change", syncTarget);
  syncTarget();
  const players = el("textarea", { id: "players", placeholder: "One name per line, in seat order" });
  const name = el("input", { type: "text", id: "game-name", placeholder: "Friday night" });
  const message = el("p", { class: "error", id: "new-game-error" });
  const form = el("form", { id: "new-game" },
    el("label", { for: "game-name", text: "Name (optional)" }), name,
    el("label", { for: "variant", text: "Variant" }), select,
    el("details", {}, el("summary", { text: "…or a house-rule file" }), houseFile,
      el("p", { class: "muted", text: "A .toml file as described in docs/house-rules.md; it is saved with the game." })),
    targetRow,
    el("label", { for: "players", text: "Players" }), players,
    el("button", { type: "submit", id: "create-game", text: "Start the game" }), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    const body = { name: name.value, players: players.value.split("\n").map((p) => p.trim()).filter(Boolean) };
    if (houseFile.files.length) body.variant_toml = await houseFile.files[0].text();
    else body.variant = select.value;
    if (!targetRow.hidden && target.value) body.target_score = Number(target.value);
    try {
      const game = await api("POST", "/api/games", body);
      location.hash = `#/games/${game.id}`;
    } catch (error) {
      message.textContent = error.message;
    }
  });
  const list = games.length
    ? el("ul", { id: "games" }, games.map((g) => el("li", {},
        el("a", { href: `#/games/${g.id}`, text: g.name || `Game ${g.id}` }),
        ` — ${g.variant_title}, ${g.players.join(", ")}, `,
        g.finished ? "finished" : `round ${g.current_round}`)))
    : el("p", { class: "muted", text: "No games yet." });
  app.replaceChildren(
    el("section", { class: "panel" }, el("h1", { text: "New game" }), form),
    el("section", { class: "panel" }, el("h2", { text: "Games" }), list),
    joinPanel(table));
}

// The host's screen (only the server's own machine is told the code): how a phone joins.
function joinPanel(table) {
  if (!table.join_url) return null;
  return el("section", { class: "panel", id: "join" },
    el("h2", { text: "Join from a phone" }),
    el("img", { class: "qr", id: "join-qr", src: table.qr_url, width: "220", height: "220",
      alt: `QR code of ${table.join_url}` }),
    el("p", {}, "On the same Wi-Fi, scan the code or open ", el("code", { text: table.join_url })),
    el("p", { class: "muted" }, "Table code: ", el("strong", { id: "join-code", text: table.code })));
}

// ---- the table: live view, round end, buys, dispute check ---------------------------------

async function showTable(id) {
  const game = await api("GET", `/api/games/${id}`);
  const sections = [tableHeader(game)];
  if (game.current_round) {
    const round = await api("GET", `/api/games/${id}/rounds/${game.current_round}`);
    sections.push(livePanel(game), roundPanel(game, round), buysPanel(game, round));
  }
  sections.push(disputePanel(game));
  app.replaceChildren(...sections);
}

// After a save: redraw the header, the round and the buys, leaving the camera running.
async function refreshTable(id) {
  const game = await api("GET", `/api/games/${id}`);
  if (!game.current_round) return route();
  const round = await api("GET", `/api/games/${id}/rounds/${game.current_round}`);
  document.getElementById("table-header").replaceWith(tableHeader(game));
  document.getElementById("round-panel").replaceWith(roundPanel(game, round));
  document.getElementById("buys-panel").replaceWith(buysPanel(game, round));
}

function tableHeader(game) {
  const number = game.current_round;
  const info = number ? game.rounds[number - 1] : null;
  return el("section", { class: "panel", id: "table-header" },
    el("h1", { id: "game-title", text: `${game.name || "Game " + game.id} — ${game.variant_title}` }),
    info
      ? el("p", { id: "round-info" }, el("strong", { text: `Round ${number}: ` }),
          `${info.contract || "any melds"} · ${info.cards_dealt} cards each`)
      : el("p", { id: "round-info", class: "ok", text: `Game over. Winner: ${game.winners.join(", ")}` }),
    el("p", { class: "muted", id: "totals", text: `Totals: ${game.players.map((p, i) => `${p} ${game.totals[i]}`).join(" · ")}` }));
}

function livePanel(game) {
  const video = el("video", { id: "live-video", autoplay: true, muted: true, playsinline: true });
  const canvas = el("canvas", { id: "live-overlay" });
  const frame = el("div", { class: "live", id: "live-frame", hidden: true }, video, canvas);
  const status = el("p", { id: "live-status", class: "muted", text: "Camera off." });
  const seen = el("div", { class: "chips", id: "live-cards" });
  const start = el("button", { id: "start-camera", text: "Start camera", onclick: () => startCamera() });
  const serverImg = el("img", { id: "server-camera", alt: "server camera" });
  const serverFrame = el("div", { class: "live", hidden: true }, serverImg);
  const panel = el("section", { class: "panel", id: "live-panel" },
    el("h2", { text: "Live table" }), el("div", { class: "row" }, start), frame, serverFrame, status,
    el("p", { class: "muted", text: "Cards seen steadily:" }), seen);

  api("GET", "/api/live/camera").then((camera) => {
    if (!camera.source) return;
    serverFrame.hidden = false;
    const timers = [];
    const poll = () => { serverImg.src = `/api/live/camera/frame.jpg?t=${Date.now()}`; };
    poll();
    timers.push(setInterval(poll, 500));
    timers.push(setInterval(async () => {
      const state = await fetch("/api/live/camera/state").then((r) => (r.ok ? r.json() : null));
      if (state) showSeen(seen, state.stable_cards, state.stable);
      const now = await api("GET", "/api/live/camera");
      status.textContent = now.recognition || now.error || `Server camera ${now.source}: ${now.frames} frames`;
    }, 1000));
    const previous = live;
    live = { stop() { timers.forEach(clearInterval); if (previous) previous.stop(); }, video: null };
  }).catch(() => {});

  async function startCamera() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      status.textContent = "This browser gives no camera here (the page needs localhost or HTTPS).";
      return;
    }
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: 1280 } });
    } catch (error) {
      status.textContent = `Camera not available: ${error.message}`;
      return;
    }
    video.srcObject = stream;
    frame.hidden = false;
    start.disabled = true;
    const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/live/ws`);
    socket.binaryType = "arraybuffer";
    let waiting = false;
    const grab = document.createElement("canvas");
    const timer = setInterval(() => {
      if (waiting || socket.readyState !== WebSocket.OPEN || !video.videoWidth) return;
      grab.width = video.videoWidth;
      grab.height = video.videoHeight;
      grab.getContext("2d").drawImage(video, 0, 0);
      waiting = true;
      grab.toBlob((blob) => blob && blob.arrayBuffer().then((buffer) => socket.send(buffer)), "image/jpeg", 0.8);
    }, 300);
    socket.onmessage = (event) => {
      waiting = false;
      const update = JSON.parse(event.data);
      if (update.error) {
        status.textContent = update.status === 503
          ? `${update.error}. The camera shows the table; enter cards by text or clicks below.`
          : update.error;
        return;
      }
      drawOverlay(canvas, update);
      showSeen(seen, update.stable_cards, update.stable);
      status.textContent = `${update.cards.length} cards in view${update.stable ? " · steady" : ""}`;
    };
    socket.onclose = () => clearInterval(timer);
    const previous = live;
    live = {
      video,
      stop() {
        clearInterval(timer);
        socket.close();
        stream.getTracks().forEach((t) => t.stop());
        if (previous) previous.stop();
      },
    };
  }
  return panel;
}

function drawOverlay(canvas, update) {
  canvas.width = update.width;
  canvas.height = update.height;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.lineWidth = Math.max(2, update.width / 320);
  ctx.font = `${Math.max(14, update.width / 45)}px system-ui`;
  for (const card of update.cards) {
    const [x1, y1, x2, y2] = card.xyxy;
    ctx.strokeStyle = "#3ddc6a";
    ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
    const label = cardLabel(card.card);
    ctx.fillStyle = "rgba(0,0,0,.7)";
    ctx.fillRect(x1, Math.max(0, y1 - 22), ctx.measureText(label).width + 8, 22);
    ctx.fillStyle = "#fff";
    ctx.fillText(label, x1 + 4, Math.max(16, y1 - 5));
  }
}

function showSeen(box, cards, stable) {
  box.replaceChildren(...cards.map((c) => el("span", { class: `chip ${isRed(c) ? "red" : ""}`, text: cardLabel(c) })));
  box.dataset.stable = stable ? "yes" : "no";
}

// The round end's entries not saved yet: each open player's editor ({node, take, release,
// holds}, by seat) and the last whole-table photo ({scan, given: sector -> seat}). The
// panel is redrawn after every save; these survive it, so one save loses no other entry.
let roundEnd = { key: null, editors: {}, table: null };

// One player's round end: scan or type or click the cards left, see the points, confirm.
function roundPanel(game, round) {
  const key = `${game.id}/${round.number}`;
  if (roundEnd.key !== key) roundEnd = { key, editors: {}, table: null };
  const grid = el("div", { class: "grid" });
  const stored = Object.fromEntries(round.hands.map((h) => [h.seat, h]));
  for (const player of game.player_list) {
    if (stored[player.seat]) delete roundEnd.editors[player.seat];
    grid.append(playerHand(game, round, player, stored[player.seat]));
  }
  return el("section", { class: "panel", id: "round-panel" },
    el("h2", { text: `Round ${round.number} end: cards left` }),
    el("p", { class: "muted", text: "Scan each hand or enter it by text or clicks; an empty hand went out." }),
    tableScan(game, round, stored),
    grid);
}

// Where a seat's hand lies in a table photo, as seen from the middle of all its cards
// ("" when it lies in the middle: the only cards, say).
function whereInPhoto(scan, seat) {
  const centre = (c) => [(c.xyxy[0] + c.xyxy[2]) / 2, (c.xyxy[1] + c.xyxy[3]) / 2];
  const all = scan.cards.map(centre);
  const mine = scan.cards.filter((c) => c.seat === seat).map(centre);
  if (!mine.length) return "";
  const mid = (values) => (Math.min(...values) + Math.max(...values)) / 2;
  const dx = mine.reduce((sum, p) => sum + p[0], 0) / mine.length - mid(all.map((p) => p[0]));
  const dy = mine.reduce((sum, p) => sum + p[1], 0) / mine.length - mid(all.map((p) => p[1]));
  if (Math.hypot(dx, dy) < 0.05 * Math.hypot(scan.width, scan.height)) return "";
  const words = ["right", "lower right", "bottom", "lower left", "left", "upper left", "top", "upper right"];
  const degrees = (Math.atan2(dy, dx) * 180) / Math.PI + 360;
  return words[Math.round(degrees / 45) % 8];
}

function seatName(scan, seat) {
  const where = whereInPhoto(scan, seat);
  return `Seat ${seat + 1}${where ? ` (${where})` : ""}`;
}

// One photo of the whole table: the hand found at each seat (sector) of the photo,
// listed, each given to its player by the person; that player's box is then filled as
// by a photo of their own hand, and their Confirm sends the seat picked (`scan_seat`).
function tableScan(game, round, stored) {
  const open = game.player_list.filter((p) => !stored[p.seat]);
  if (!open.length) return null;
  const photo = el("input", { type: "file", accept: "image/*", capture: "environment", id: "table-photo", hidden: true });
  const photoButton = el("button", { type: "button", class: "secondary", id: "table-photo-button",
    text: "Photo of the whole table", onclick: () => photo.click() });
  const liveButton = el("button", { type: "button", class: "secondary", id: "table-live",
    text: "Whole table from camera", onclick: () => fromLive() });
  const busy = busyLine();
  busy.hidden = true;
  const message = el("p", { class: "error" });
  const list = el("div", { id: "table-hands" });
  const block = el("div", { class: "table-scan", id: "table-scan" },
    el("p", { class: "muted hint", text: "Or one photo of the whole table: each hand found is listed here, to give to its player." }),
    el("div", { class: "row" }, photoButton, liveButton, photo),
    busy, message, list);

  // The player holding a seat's hand: saved from this photo, or in their box to confirm.
  const holder = (scan, seat) => {
    const who = roundEnd.table.given[seat];
    if (who === undefined) return null;
    if (stored[who]) return stored[who].scan_id === scan.id ? { seat: who, saved: true } : null;
    const editor = roundEnd.editors[who];
    return editor && editor.holds(scan.id, seat) ? { seat: who, saved: false } : null;
  };
  const give = (sector, seat) => {
    const { scan, given } = roundEnd.table;
    const before = holder(scan, sector);
    if (before && before.seat !== seat) roundEnd.editors[before.seat].release(scan.id, sector);
    for (const [other, who] of Object.entries(given)) if (who === seat) delete given[other];
    if (seat === null) delete given[sector];
    else {
      given[sector] = seat;
      roundEnd.editors[seat].take(scan, sector);
    }
    draw();
    const again = list.querySelector(`[data-seat="${sector}"] .give`);
    if (again) again.focus();
  };
  const seatRow = (scan, hand) => {
    const name = seatName(scan, hand.seat);
    const held = holder(scan, hand.seat);
    const nameOf = (seat) => game.player_list.find((p) => p.seat === seat).name;
    const cards = el("p", { class: "seat-cards" }, el("strong", { text: `${name}:` }), " ",
      hand.cards.flatMap((c) => [el("span", { class: `chip${isRed(c) ? " red" : ""}`, text: cardLabel(c) }), " "]),
      el("span", { class: "seat-points", text: `— ${hand.points} pts` }));
    if (held && held.saved) {
      return el("li", { class: "seat-hand saved", "data-seat": hand.seat }, cards,
        el("p", { class: "ok", text: `${nameOf(held.seat)}'s hand ✓ saved` }));
    }
    // By default the player whose seat number is the sector's, unless given another hand.
    const taken = new Set(Object.entries(roundEnd.table.given)
      .filter(([sector]) => Number(sector) !== hand.seat).map(([, seat]) => seat));
    const chosen = held ? held.seat
      : open.some((p) => p.seat === hand.seat && !taken.has(p.seat)) ? hand.seat : null;
    const select = el("select", { class: "whose", "aria-label": `Whose hand is seat ${hand.seat + 1}?` },
      el("option", { value: "", text: "no one", selected: chosen === null }),
      open.map((p) => el("option", { value: p.seat, text: p.name, selected: p.seat === chosen })));
    return el("li", { class: `seat-hand${held ? " given" : ""}`, "data-seat": hand.seat }, cards,
      el("div", { class: "pick" },
        el("span", { class: "whose-label", "aria-hidden": "true", text: "Whose hand?" }), select,
        el("button", { type: "button", class: "give", text: "Fill in",
          onclick: () => give(hand.seat, select.value === "" ? null : Number(select.value)) })),
      held ? el("p", { class: "ok given-to", text: `In ${nameOf(held.seat)}'s box: check, then confirm there.` }) : null);
  };
  const draw = () => {
    const table = roundEnd.table;
    if (!table) return list.replaceChildren();
    const { scan } = table;
    list.replaceChildren(
      warningBox(scan.warnings, "Check the table photo:"),
      scan.seats.length
        ? el("p", { class: "muted", text: "Hands found, seat 1 nearest the bottom of the photo, then clockwise:" })
        : el("p", { class: "muted", text: "No hand found in the photo." }),
      scan.seats.length ? el("ul", { class: "seat-hands" }, scan.seats.map((hand) => seatRow(scan, hand))) : null,
      el("img", { class: "evidence", src: scan.annotated_url, alt: "the table photo, each card read boxed" }));
  };
  const send = async (blob, source) => {
    const form = new FormData();
    form.append("player", String(open[0].seat)); // the record's; any player may confirm from it
    form.append("source", source);
    form.append("photo", "table");
    form.append("image", blob, "table.jpg");
    message.textContent = "";
    busy.hidden = false;
    photoButton.disabled = liveButton.disabled = true;
    try {
      const scan = await api("POST", `/api/games/${game.id}/rounds/${round.number}/scans`, form);
      roundEnd.table = { scan, given: {} };
      draw();
    } catch (error) {
      message.textContent = error.message;
    } finally {
      busy.hidden = true;
      photoButton.disabled = liveButton.disabled = false;
    }
  };
  const fromLive = photoSources(photo, send, message, "Start the camera first (or take a photo).");
  draw();
  return block;
}

function playerHand(game, round, player, hand) {
  const box = el("div", { class: "player", id: `player-${player.seat}`, "data-player": player.name });
  const points = el("span", { class: "points", text: hand ? `${hand.points} pts` : "" });
  const title = el("h3", {}, el("span", { text: player.name }), points);
  if (hand) {
    box.append(title,
      el("div", { class: "chips saved-cards" }, hand.cards.map((c) => el("span", { class: `chip ${isRed(c) ? "red" : ""}`, text: cardLabel(c) }))),
      el("p", { class: "ok", text: hand.went_out ? `Went out${hand.blind ? " blind" : ""} ✓ saved` : "✓ saved" }),
      hand.corrections.length
        ? el("p", { class: "muted", text: `Corrections: ${hand.corrections.map((c) => `${c.action} ${c.card}`).join(", ")}` })
        : "", // (append writes null as the text "null")
      el("button", { class: "secondary correct", text: "Correct", onclick: () => box.replaceWith(editor(true)) }));
    return box;
  }
  const kept = roundEnd.editors[player.seat];
  return kept ? kept.node : editor(false);

  function editor(correcting) {
    const node = el("div", { class: "player", id: `player-${player.seat}`, "data-player": player.name });
    let scanId = null;
    let scanSeat = null; // a whole-table photo: the seat (sector) whose hand this is
    let scanned = null; // the last scan's cards (with `sure`) and warnings
    const input = el("input", { type: "text", class: "cards-input", "aria-label": `${player.name}'s cards`,
      placeholder: "e.g. 7h 10s JK", value: hand ? hand.cards.join(" ") : "" });
    const chips = el("div", { class: "chips" });
    const pts = el("span", { class: "points" });
    const message = el("p", { class: "error" });
    const blind = el("input", { type: "checkbox", class: "blind" });
    const evidence = el("div", { class: "evidence-box" });
    const notes = el("div", { class: "scan-notes" });
    const busy = busyLine();
    busy.hidden = true;
    const question = el("div", { class: "ask", role: "alertdialog", "aria-labelledby": `ask-out-${player.seat}`, hidden: true,
      onkeydown: (event) => { if (event.key === "Escape") { question.hidden = true; input.focus(); } } });
    // Reads below the sure level, by name: a chip with such a card is marked until removed.
    const unsureReads = () => {
      const counts = {};
      for (const card of scanned ? scanned.cards : []) if (!card.sure) counts[card.card] = (counts[card.card] || 0) + 1;
      return counts;
    };
    const refresh = async () => {
      const cards = splitCards(input.value);
      const unsure = unsureReads();
      question.hidden = true;
      chips.replaceChildren(...cards.map((c, i) => {
        const doubt = unsure[c] > 0;
        if (doubt) unsure[c] -= 1;
        return el("button", {
          type: "button", class: `chip${isRed(c) ? " red" : ""}${doubt ? " unsure" : ""}`,
          title: doubt ? "unsure read: check it (click to remove)" : "remove",
          "aria-label": doubt ? `${c}, unsure: check it` : `${c}, remove`,
          onclick: () => { cards.splice(i, 1); input.value = cards.join(" "); refresh(); },
        }, cardLabel(c), doubt ? el("span", { class: "doubt", "aria-hidden": "true", text: "?" }) : null);
      }));
      try {
        const result = await api("POST", `/api/games/${game.id}/points`, { cards: input.value });
        pts.textContent = `${result.points} pts`;
        message.textContent = "";
      } catch (error) {
        pts.textContent = "";
        message.textContent = error.message;
      }
    };
    input.addEventListener("input", refresh);
    const picker = el("div", { class: "picker" }, deckFor(game.family).map((c) => el("button", {
      type: "button", class: isRed(c) ? "red" : "", text: cardLabel(c), "data-card": c,
      onclick: () => { input.value = [...splitCards(input.value), c].join(" "); refresh(); },
    })));
    const photo = el("input", { type: "file", accept: "image/*", capture: "environment", class: "scan-file", hidden: true });
    const photoButton = el("button", { type: "button", class: "secondary scan-photo", text: "Photo", onclick: () => photo.click() });
    const liveButton = el("button", { type: "button", class: "secondary scan-live", text: "Scan from camera", onclick: () => fromLive() });
    const saveButton = el("button", { type: "button", class: "save", text: correcting ? "Save correction" : "Confirm", onclick: () => save(false) });
    const setBusy = (on) => {
      busy.hidden = !on;
      photoButton.disabled = liveButton.disabled = saveButton.disabled = on;
    };
    const scan = async (blob, source) => {
      const form = new FormData();
      form.append("player", String(player.seat));
      form.append("source", source);
      form.append("image", blob, "hand.jpg");
      message.textContent = "";
      question.hidden = true;
      setBusy(true);
      try {
        take(await api("POST", `/api/games/${game.id}/rounds/${round.number}/scans`, form), null);
      } catch (error) {
        message.textContent = error.message;
      } finally {
        setBusy(false);
      }
    };
    // A scan's cards to check: a photo of this hand (sector null), or the hand at one
    // sector of a whole-table photo (whose warnings are shown once, above its list).
    const take = (result, sector) => {
      const table = sector !== null;
      scanId = result.id;
      scanSeat = sector;
      scanned = table ? { cards: result.cards.filter((c) => c.seat === sector), warnings: [] } : result;
      input.value = (table ? result.seats.find((s) => s.seat === sector).cards : result.proposed).join(" ");
      message.textContent = "";
      question.hidden = true;
      const unsure = scanned.cards.some((c) => !c.sure);
      evidence.replaceChildren(
        table
          ? el("p", { class: "from-table", text: `From the table photo: ${seatName(result, sector).toLowerCase()}.` })
          : el("img", { class: "evidence", src: result.annotated_url, alt: "scanned cards" }),
        el("p", { class: "muted", text: unsure
          ? "Check the cards, above all those marked ?: click one to remove it, add any missed, then confirm."
          : "Check the cards: click one to remove it, add any missed, then confirm." }));
      notes.replaceChildren(table ? "" : warningBox(result.warnings, "Check before confirming:") || "");
      refresh();
    };
    // The table photo's hand given to another player: this box is emptied again.
    const release = (id, sector) => {
      if (scanId !== id || scanSeat !== sector) return;
      scanId = scanSeat = scanned = null;
      input.value = "";
      evidence.replaceChildren();
      notes.replaceChildren();
      refresh();
    };
    const fromLive = photoSources(photo, scan, message, "Start the camera first (or upload a photo).");
    // An empty hand from a scan that saw cards (or could not be trusted) is asked first.
    const askOut = () => {
      const read = scanned.cards.map((c) => cardLabel(c.card)).join(" ");
      question.replaceChildren(
        el("p", { id: `ask-out-${player.seat}`, class: "question", text: `No cards left: did ${player.name} go out?` }),
        el("p", { class: "muted", text: scanned.cards.length
          ? `The scan read ${plural(scanned.cards.length, "card")}: ${read}.`
          : `The scan said: ${scanned.warnings[0].message}.` }),
        el("div", { class: "row" },
          el("button", { type: "button", class: "confirm-out", text: `Yes, ${player.name} went out`,
            onclick: () => { question.hidden = true; save(true); } }),
          el("button", { type: "button", class: "secondary cancel-out", text: "Cancel",
            onclick: () => { question.hidden = true; input.focus(); } })));
      question.hidden = false;
      question.querySelector(".confirm-out").focus();
    };
    const save = async (confirmOut) => {
      message.textContent = "";
      const empty = splitCards(input.value).length === 0;
      const doubtful = scanned && (scanned.cards.length > 0 || scanned.warnings.length > 0);
      if (!correcting && scanId !== null && empty && doubtful && !confirmOut) {
        askOut();
        return;
      }
      const body = { cards: input.value, blind: blind.checked };
      try {
        if (correcting) await api("PUT", `/api/games/${game.id}/rounds/${round.number}/hands/${player.seat}`, body);
        else {
          await api("POST", `/api/games/${game.id}/rounds/${round.number}/hands`,
            { ...body, player: player.seat, scan_id: scanId, scan_seat: scanSeat ?? undefined,
              confirm_out: confirmOut && empty });
        }
        await refreshTable(game.id);
      } catch (error) {
        message.textContent = error.message;
      }
    };
    node.append(el("h3", {}, el("span", { text: player.name }), pts),
      el("div", { class: "row" }, photoButton, liveButton, photo),
      busy, evidence, notes, input, chips,
      el("details", {}, el("summary", { text: "Pick cards" }), picker),
      el("label", { class: "muted" }, blind, " went out blind (all cards in one play)"),
      saveButton, question, message);
    refresh();
    if (!correcting) {
      const holds = (id, sector) => scanId === id && scanSeat === sector;
      roundEnd.editors[player.seat] = { node, take, release, holds };
    }
    return node;
  }
}

function buysPanel(game, round) {
  const rows = round.buys.map((b) => {
    const message = el("span", { class: "error" });
    return el("div", { class: "row buy", id: `buys-${b.seat}` },
      el("strong", { text: b.player }),
      el("span", { class: "buys-left", text: `${b.left} of ${b.allowed} buys left` }),
      el("button", { type: "button", class: "buy-button", text: "+ Buy", onclick: async () => {
        try {
          await api("POST", `/api/games/${game.id}/rounds/${round.number}/buys`, { player: b.seat });
          await refreshTable(game.id);
        } catch (error) { message.textContent = error.message; }
      } }),
      el("button", { type: "button", class: "secondary", text: "Undo", disabled: b.used === 0, onclick: async () => {
        try {
          await api("DELETE", `/api/games/${game.id}/rounds/${round.number}/buys?player=${b.seat}`);
          await refreshTable(game.id);
        } catch (error) { message.textContent = error.message; }
      } }),
      message);
  });
  return el("section", { class: "panel", id: "buys-panel" }, el("h2", { text: `Buys in round ${round.number}` }), rows);
}

function disputePanel(game) {
  const number = game.current_round || game.rounds.length;
  const roundSelect = el("select", { id: "check-round" }, game.rounds.map((r) =>
    el("option", { value: r.number, selected: r.number === number, text: `Round ${r.number}: ${r.contract || "any melds"}` })));
  const input = el("input", { type: "text", id: "check-cards", placeholder: "7h 7s 7c | 4d 5d 6d 7d" });
  const photo = el("input", { type: "file", accept: "image/*", capture: "environment", id: "check-photo" });
  const result = el("div", { id: "check-result" });
  const checkButton = el("button", { type: "button", id: "check-button", text: "Check", onclick: () => check() });
  // A photo's answer also brings its melds as text (put in the field, to edit and check
  // again), the cards lying outside every meld, and what to check.
  const show = (report, photoAnswer) => {
    if (photoAnswer && report.text !== null) input.value = report.text;
    result.replaceChildren(
      photoAnswer ? warningBox(report.warnings, "Check the photo:") : null,
      photoAnswer && report.text
        ? el("p", { class: "muted", text: "The photo's melds are in the lay-down field: correct any card and press Check." })
        : null,
      el("p", { class: report.valid ? "ok" : "error", text: report.valid ? "Legal lay-down" : "Not a legal lay-down" }),
      ...report.melds.map((m, i) => el("div", { class: `verdict ${m.valid ? "valid" : "invalid"}` },
        el("strong", { text: `Meld ${i + 1}: ${m.cards.map(cardLabel).join(" ")}` }), " — ",
        m.valid ? m.description : m.reasons.join("; "))),
      report.loose && report.loose.length
        ? el("div", { class: "verdict loose", id: "check-loose" },
            el("strong", { text: "Not part of a meld: " }),
            report.loose.map((c) => el("span", { class: `chip${isRed(c) ? " red" : ""}`, text: cardLabel(c) })))
        : null,
      ...report.reasons.filter((r) => !r.startsWith("meld ")).map((r) => el("p", { class: "error", text: r })),
      report.annotated_jpeg ? el("img", { class: "evidence", src: `data:image/jpeg;base64,${report.annotated_jpeg}`, alt: "checked lay-down" }) : null);
  };
  const check = async () => {
    try {
      show(await api("POST", `/api/games/${game.id}/rounds/${roundSelect.value}/check`, { cards: input.value }), false);
    } catch (error) {
      result.replaceChildren(el("p", { class: "error", text: error.message }));
    }
  };
  photo.addEventListener("change", async () => {
    if (!photo.files.length) return;
    const form = new FormData();
    form.append("image", photo.files[0]);
    photo.value = ""; // the same photo again is a new check
    result.replaceChildren(busyLine());
    photo.disabled = checkButton.disabled = true;
    try {
      show(await api("POST", `/api/games/${game.id}/rounds/${roundSelect.value}/check-image`, form), true);
    } catch (error) {
      result.replaceChildren(el("p", { class: "error", text: error.message }));
    } finally {
      photo.disabled = checkButton.disabled = false;
    }
  });
  return el("section", { class: "panel", id: "dispute-panel" },
    el("h2", { text: "Dispute check" }), roundSelect,
    el("label", { for: "check-cards", text: "Lay-down ('|' between melds, or ungrouped)" }), input,
    el("div", { class: "row" }, checkButton,
      el("label", { class: "muted photo-label" }, "or a photo: ", photo)),
    result);
}

// ---- score sheet -----------------------------------------------------------------------

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

async function showSheet(id) {
  const sheet = await api("GET", `/api/games/${id}/sheet`);
  const head = el("tr", {}, el("th", { text: "Round" }), el("th", { text: "Contract" }),
    sheet.players.map((p) => el("th", { text: p })));
  const firstOpen = sheet.rounds.find((r) => !r.complete);
  const body = sheet.rounds.map((r) => el("tr", { class: r === firstOpen ? "current" : "" },
    el("td", { text: r.number }), el("td", { class: "contract", text: r.contract || "any melds" }),
    r.points.map((p, i) => el("td", {},
      p === null ? "" : String(p),
      r.totals ? el("div", { class: "muted", text: `Σ ${r.totals[i]}` }) : null))));
  const foot = el("tr", {}, el("td", { colspan: 2, text: "Total" }), sheet.totals.map((t) => el("td", { text: t })));
  const result = sheet.winners.length
    ? `Winner: ${sheet.winners.join(", ")}${sheet.loser ? ` · ${sheet.loser} reached ${sheet.target_score}` : ""}`
    : sheet.totals.some((t) => t !== 0) ? `Leading: ${sheet.leaders.join(", ")}` : "No rounds scored yet.";
  app.replaceChildren(
    el("section", { class: "panel" },
      el("h1", { text: `${sheet.name || "Game " + sheet.game_id} — score sheet` }),
      el("p", { id: "sheet-result", class: sheet.winners.length ? "ok" : "", text: result }),
      el("div", { class: "table-scroll" }, el("table", { class: "sheet", id: "score-sheet" },
        el("thead", {}, head), el("tbody", {}, body), el("tfoot", {}, foot))),
      el("div", { class: "row" },
        el("a", { class: "button secondary", href: `/api/games/${id}/sheet.csv`, id: "csv-link", text: "Download CSV" }),
        el("a", { class: "button secondary", href: `/games/${id}/print`, id: "print-link", target: "_blank", text: "Printable sheet" }))),
    el("section", { class: "panel chart", id: "chart" }, el("h2", { text: "Running totals" }), chart(sheet)));
}

function chart(sheet) {
  const rounds = sheet.rounds.filter((r) => r.totals);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const W = 600, H = 280, L = 44, B = 30, T = 12, R = 12;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "running totals by round");
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  const count = Math.max(sheet.rounds.length, 1);
  const values = rounds.flatMap((r) => r.totals);
  const top = Math.max(10, ...values), low = Math.min(0, ...values);
  const x = (n) => L + ((W - L - R) * n) / count;
  const y = (v) => T + (H - T - B) * (1 - (v - low) / (top - low || 1));
  add("line", { x1: L, y1: y(low), x2: W - R, y2: y(low), stroke: "#999" });
  add("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#999" });
  for (let n = 0; n <= count; n++) add("text", { x: x(n), y: H - 10, "font-size": 12, "text-anchor": "middle" }, n);
  for (const v of [low, Math.round((low + top) / 2), top]) add("text", { x: L - 6, y: y(v) + 4, "font-size": 12, "text-anchor": "end" }, v);
  sheet.players.forEach((player, seat) => {
    const points = [[0, 0], ...rounds.map((r) => [r.number, r.totals[seat]])];
    const colour = COLOURS[seat % COLOURS.length];
    add("polyline", { points: points.map(([n, v]) => `${x(n)},${y(v)}`).join(" "), fill: "none", stroke: colour, "stroke-width": 3, class: "series" });
    for (const [n, v] of points.slice(1)) add("circle", { cx: x(n), cy: y(v), r: 4, fill: colour });
  });
  // Colours set through the CSSOM: the page's CSP allows no inline style attributes.
  const legend = el("div", { class: "legend" }, sheet.players.map((p, i) => {
    const entry = el("span", { text: `● ${p}` });
    entry.style.color = COLOURS[i % COLOURS.length];
    return entry;
  }));
  return el("div", {}, svg, legend);
}
