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
  let response;
  try {
    response = await fetch(path, options);
  } catch (_network) {
    const error = new Error("The table's server cannot be reached (no network?). "
      + "Entries not yet confirmed stay on this device; try again when it is back.");
    error.status = 0;
    throw error;
  }
  if (response.status === 204) return null;
  // The table code is missing or has changed: the page itself then asks for it.
  if (response.status === 401 && response.headers.get("WWW-Authenticate") === "X-Table-Code") {
    location.reload();
  }
  const data = await response.json().catch(() => ({ detail: response.statusText }));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map(inWords).join(" ") : data.detail;
    const error = new Error(sentence(detail || `The server answered ${response.status}.`));
    error.status = response.status;
    throw error;
  }
  return data;
}

// A request validation error (FastAPI's list) said as a person would.
const FIELD_NAMES = {
  players: "the players", name: "the name", cards: "the cards", target_score: "the target score",
  variant: "the variant", variant_toml: "the house-rule file", player: "the player",
};
function inWords(problem) {
  const loc = (problem.loc || []).filter((part) => part !== "body" && typeof part === "string");
  const field = FIELD_NAMES[loc[0]] || (loc[0] ? loc[0].replace(/_/g, " ") : "the form");
  const ctx = problem.ctx || {};
  const said = {
    too_short: field === "the players"
      ? "Enter at least one player, one name per line."
      : `${capital(field)} needs at least ${ctx.min_length} ${ctx.min_length === 1 ? "item" : "items"}.`,
    too_long: `${capital(field)} has too many entries (at most ${ctx.max_length}).`,
    string_too_long: `${capital(field)} is too long (at most ${ctx.max_length} characters).`,
    string_too_short: `${capital(field)} is empty.`,
    missing: `${capital(field)} is missing.`,
    greater_than_equal: `${capital(field)} must be at least ${ctx.ge}.`,
    greater_than: `${capital(field)} must be more than ${ctx.gt}.`,
    less_than_equal: `${capital(field)} must be at most ${ctx.le}.`,
    int_parsing: `${capital(field)} must be a whole number.`,
    int_from_float: `${capital(field)} must be a whole number.`,
  }[problem.type];
  if (said) return said;
  const message = String(problem.msg || "is not valid").replace(/^Value error, /, "");
  return `${capital(field)}: ${message}.`;
}
function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
function sentence(text) {
  const said = capital(String(text).trim());
  return /[.!?…]$/.test(said) ? said : `${said}.`;
}

function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), 4000);
}

const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_NAME = { A: "ace", J: "jack", Q: "queen", K: "king" };
const ROOK_COLOUR = { B: "black", R: "red", Y: "yellow", G: "green" };
function cardLabel(card) {
  const suit = card.slice(-1);
  return SUIT_SYMBOL[suit] ? card.slice(0, -1) + SUIT_SYMBOL[suit] : card;
}
// A card as words, for screen readers: "7 of hearts", "joker", "12 yellow".
function cardName(card) {
  if (card === "JK") return "joker";
  if (card === "ROOK") return "the Rook";
  const suit = card.slice(-1), rank = card.slice(0, -1);
  if (SUIT_NAME[suit]) return `${RANK_NAME[rank] || rank} of ${SUIT_NAME[suit]}`;
  if (ROOK_COLOUR[suit]) return `${rank} ${ROOK_COLOUR[suit]}`;
  return card;
}
function isRed(card) {
  return /[dhR]$/.test(card);
}
// A card's colour classes: its suit (red or black, or four colours when chosen) or its
// Rook colour; the Rook colours also carry their letter, so no card is told by colour alone.
function suitClass(card) {
  const suit = card.slice(-1);
  if (SUIT_NAME[suit] && card !== "JK") return `suit-${suit}${isRed(card) ? " red" : ""}`;
  if (ROOK_COLOUR[suit] && /^\d/.test(card)) return `rook-${suit}${suit === "R" ? " red" : ""}`;
  return "";
}
function chipClass(card, extra = "") {
  return ["chip", suitClass(card), extra].filter(Boolean).join(" ");
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

// Progress while a scan runs: "Reading the cards… 4 s" (the seconds after the first two),
// so a slow phone upload or model does not look stuck. Returns the function that stops it.
function showBusy(line, what) {
  const started = Date.now();
  const say = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    line.textContent = seconds >= 2 ? `${what}… ${seconds} s` : `${what}…`;
  };
  say();
  line.hidden = false;
  const timer = setInterval(say, 1000);
  return () => {
    clearInterval(timer);
    line.hidden = true;
  };
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

// The game's deck (`cards_in_play` of the game, from the server: the engine's cards for
// this variant and player count) in rows, one per suit or Rook colour in the order given,
// then the odd cards (jokers, the Rook bird): the picker's layout.
function deckRows(cardsInPlay) {
  const rows = new Map();
  const odd = [];
  for (const card of cardsInPlay) {
    const suit = card.slice(-1);
    const name = card !== "JK" && (SUIT_NAME[suit] || (/^\d/.test(card) && ROOK_COLOUR[suit]));
    if (!name) {
      odd.push(card);
      continue;
    }
    if (!rows.has(name)) rows.set(name, []);
    rows.get(name).push(card);
  }
  const out = [...rows].map(([name, cards]) => ({ name, cards }));
  if (odd.length) out.push({ name: odd.map((c) => (c === "JK" ? "jokers" : cardName(c))).join(", "), cards: odd });
  return out;
}

// ---- routing ---------------------------------------------------------------------------

function stopLive() {
  if (!live) return;
  live.stop();
  live = null;
}

// Draws a view, unless the person has gone to another view while its data was on the
// way: two quick hash changes (#/ then #/decks) ran two routes at once, and the first,
// finishing last, drew the home page under the address of the decks. Returns whether
// it drew, so a view starts its polling only when it is the one shown.
function drawView(hash, ...nodes) {
  if ((location.hash || "#/") !== hash) return false;
  app.replaceChildren(...nodes);
  return true;
}

async function route() {
  stopLive();
  stopSync();
  const hash = location.hash || "#/";
  const sheet = hash.match(/^#\/games\/(\d+)\/sheet$/);
  const game = hash.match(/^#\/games\/(\d+)$/);
  const pastRound = hash.match(/^#\/games\/(\d+)\/rounds\/(\d+)$/);
  const nav = document.getElementById("game-nav");
  nav.hidden = !(sheet || game || pastRound);
  try {
    if (pastRound) {
      setNav(pastRound[1]);
      await showPastRound(Number(pastRound[1]), Number(pastRound[2]));
    } else if (hash === "#/history") {
      await showRecords();
    } else if (hash === "#/decks" || hash.startsWith("#/decks/")) {
      await showDecks(decodeURIComponent(hash.slice("#/decks/".length)));
    } else if (sheet) {
      setNav(sheet[1]);
      await showSheet(Number(sheet[1]));
    } else if (game) {
      setNav(game[1]);
      await showTable(Number(game[1]));
    } else await showHome();
  } catch (error) {
    drawView(hash, el("section", { class: "panel" }, el("p", { class: "error", role: "alert", text: error.message }),
      el("div", { class: "row" },
        el("button", { type: "button", id: "retry", text: "Try again", onclick: () => route() }),
        el("a", { class: "button secondary", href: "#/", text: "Back to the games" }))));
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
  const hash = location.hash || "#/";
  const [variants, games, table] = await Promise.all(
    [api("GET", "/api/variants"), api("GET", "/api/games"), api("GET", "/api/table")]);
  const select = el("select", { id: "variant" },
    variants.map((v) => el("option", { value: v.name, text: `${v.title} (${v.min_players}-${v.max_players} players)` })));
  const houseFile = el("input", { type: "file", id: "house-file", accept: ".toml,text/plain", "aria-label": "House-rule file" });
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
  const deck = deckPicker(variants, select); // decks.js
  const name = el("input", { type: "text", id: "game-name", placeholder: "Friday night" });
  const message = el("p", { class: "error", id: "new-game-error", role: "alert" });
  const form = el("form", { id: "new-game" },
    el("label", { for: "game-name", text: "Name (optional)" }), name,
    el("label", { for: "variant", text: "Variant" }), select,
    el("details", {}, el("summary", { text: "…or a house-rule file" }), houseFile,
      el("p", { class: "muted", text: "A .toml file as described in docs/house-rules.md; it is saved with the game." })),
    targetRow, deck.row,
    el("label", { for: "players", text: "Players" }), players,
    el("button", { type: "submit", id: "create-game", text: "Start the game" }), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    const body = { name: name.value, players: players.value.split("\n").map((p) => p.trim()).filter(Boolean) };
    const chosen = variants.find((v) => v.name === select.value);
    if (!body.players.length) {
      message.textContent = "Enter the players first, one name per line, in seat order.";
      players.focus();
      return;
    }
    if (!houseFile.files.length && chosen && (body.players.length < chosen.min_players || body.players.length > chosen.max_players)) {
      message.textContent = `${chosen.title} is for ${chosen.min_players} to ${chosen.max_players} players; `
        + `${plural(body.players.length, "name")} entered.`;
      players.focus();
      return;
    }
    if (houseFile.files.length) body.variant_toml = await houseFile.files[0].text();
    else body.variant = select.value;
    if (!targetRow.hidden && target.value) body.target_score = Number(target.value);
    if (deck.value()) body.deck = deck.value();
    try {
      const game = await api("POST", "/api/games", body);
      location.hash = `#/games/${game.id}`;
    } catch (error) {
      message.textContent = error.message;
    }
  });
  const list = games.length
    ? el("ul", { id: "games" }, games.map((g) => gameItem(g)))
    : el("p", { class: "muted", text: "No games yet." });
  if (!drawView(hash, ...[ // the join panel is null beyond the host's own screen
    el("section", { class: "panel" }, el("h1", { text: "New game" }), form),
    el("section", { class: "panel" }, el("h2", { text: "Games" }), list,
      el("p", {}, el("a", { href: "#/history", id: "records-link", text: "Finished games, statistics, export and import" })),
      el("p", {}, el("a", { href: "#/decks", id: "decks-link", text: "Teach a deck: your own cards, read better" }))),
    joinPanel(table),
  ].filter(Boolean))) return;
}

// A game in the home list: its link, and "Delete…", asked first in the list itself.
function gameItem(g) {
  const title = g.name || `Game ${g.id}`;
  const message = el("span", { class: "error", role: "alert" });
  const item = el("li", { id: `game-item-${g.id}` });
  const ask = el("div", { class: "ask", role: "alertdialog", hidden: true, "aria-label": `Delete ${title}?` },
    el("p", { class: "question", text: `Delete ${title} for good?` }),
    el("p", { text: "Its hands, scores, buys and photos are deleted too, on every device." }),
    el("div", { class: "row" },
      el("button", { type: "button", class: "delete-yes", text: "Yes, delete the game", onclick: async () => {
        try {
          await api("DELETE", `/api/games/${g.id}`);
          drafts.dropBefore(g.id, Infinity);
          toast(`${title} was deleted.`);
          await route();
        } catch (error) {
          message.textContent = error.message;
        }
      } }),
      el("button", { type: "button", class: "secondary delete-no", text: "Keep it", onclick: () => {
        ask.hidden = true;
        remove.focus();
      } })));
  const remove = el("button", { type: "button", class: "secondary small delete-game", text: "Delete…",
    "aria-label": `Delete ${title}…`, onclick: () => {
      ask.hidden = false;
      ask.querySelector(".delete-no").focus();
    } });
  item.append(
    el("div", { class: "game-line" },
      el("span", {}, el("a", { href: `#/games/${g.id}`, text: title }),
        ` — ${g.variant_title}, ${g.players.join(", ")}, `,
        g.finished ? "finished" : `round ${g.current_round}`),
      remove),
    ask, message);
  return item;
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
  const hash = location.hash || "#/";
  const game = await api("GET", `/api/games/${id}`);
  const sections = [tableHeader(game)];
  let round = null;
  if (game.current_round) {
    round = await api("GET", `/api/games/${id}/rounds/${game.current_round}`);
    sections.push(livePanel(game), roundPanel(game, round), buysPanel(game, round), roundHistoryFold(game, round.number));
  }
  sections.push(disputePanel(game), gamePanel(game));
  if (!drawView(hash, ...sections)) return;
  sync.seen = tableState(game, round);
  sync.drawn += 1;
  startSync(id);
}

// After a save, or when another device changed the game: redraw the header, the round
// and the buys, leaving the camera running and every entry not confirmed where it was
// (the kept editors are moved into the new panel; the focus and the caret follow).
async function refreshTable(id, fetched = null) {
  const { game, round } = fetched || await fetchTable(id);
  if (!round || !document.getElementById("round-panel")) return route();
  const focus = document.activeElement;
  const caret = focus && typeof focus.selectionStart === "number"
    ? [focus.selectionStart, focus.selectionEnd] : null;
  document.getElementById("table-header").replaceWith(tableHeader(game));
  document.getElementById("round-panel").replaceWith(roundPanel(game, round));
  document.getElementById("buys-panel").replaceWith(buysPanel(game, round));
  sync.seen = tableState(game, round);
  sync.drawn += 1;
  if (focus && focus !== document.activeElement && focus.isConnected) {
    focus.focus({ preventScroll: true });
    if (caret) focus.setSelectionRange(...caret);
  }
}

async function fetchTable(id) {
  const game = await api("GET", `/api/games/${id}`);
  const round = game.current_round ? await api("GET", `/api/games/${id}/rounds/${game.current_round}`) : null;
  return { game, round };
}

// What the other devices may change: the round, its hands and its buys.
function tableState(game, round) {
  return JSON.stringify([game.current_round, game.totals, round && round.hands.map((h) =>
    [h.seat, h.id, h.points, h.cards, h.blind, h.corrections.length]), round && round.buys.map((b) => b.used)]);
}

// Updates from the other devices: the table is read every few seconds while the page is
// shown (and at once when it comes back or the network returns); a change redraws it.
// `drawn` counts the table's drawings: a poll answered after this page drew the table
// itself (its own save) holds an older state and is dropped, not drawn over the newer one.
const sync = { timer: null, id: null, seen: null, busy: false, drawn: 0 };
function startSync(id) {
  stopSync();
  sync.id = id;
  sync.timer = setInterval(pollTable, 4000);
}
function stopSync() {
  clearInterval(sync.timer);
  sync.timer = null;
  sync.id = null;
}
async function pollTable() {
  if (sync.id === null || sync.busy || document.hidden) return;
  const id = sync.id;
  const drawn = sync.drawn;
  sync.busy = true;
  try {
    const fetched = await fetchTable(id);
    if (sync.id !== id || sync.drawn !== drawn) return;
    document.body.classList.remove("offline");
    // A question open on the page (undo? delete?) is not swept away under the person's
    // finger: the redraw waits for the next poll after it is answered or folded.
    const asking = document.querySelector("#app .ask:not([hidden])");
    if (!asking && tableState(fetched.game, fetched.round) !== sync.seen) await refreshTable(id, fetched);
  } catch (error) {
    if (error.status === 0) document.body.classList.add("offline");
  } finally {
    sync.busy = false;
  }
}
document.addEventListener("visibilitychange", () => { if (!document.hidden) pollTable(); });
window.addEventListener("online", () => pollTable());

function tableHeader(game) {
  const number = game.current_round;
  const info = number ? game.rounds[number - 1] : null;
  return el("section", { class: "panel", id: "table-header" },
    el("h1", { id: "game-title", text: `${game.name || "Game " + game.id} — ${game.variant_title}` }),
    info
      ? el("p", { id: "round-info" }, el("strong", { text: `Round ${number}: ` }),
          `${info.contract || "any melds"} · ${info.cards_dealt} cards each`)
      : el("p", { id: "round-info", class: "ok", text: `Game over. Winner: ${game.winners.join(", ")}` }),
    el("p", { class: "muted", id: "totals", text: `Totals: ${game.players.map((p, i) => `${p} ${game.totals[i]}`).join(" · ")}` }),
    game.deck ? el("p", { class: "muted", id: "deck-info", text: `Cards read with the deck '${game.deck}'` }) : null,
    changeControls(game));
}

// The game itself: its players renamed (a typo, a nickname: seats and scores stay) and
// the game deleted, asked first since its hands, scores and photos go with it. Drawn once
// with the table, not on its redraws, so names being typed stay.
function gamePanel(game) {
  const message = el("p", { class: "error", id: "game-edit-error", role: "alert" });
  const inputs = game.player_list.map((p) => el("input", {
    type: "text", class: "player-name", id: `player-name-${p.seat}`, value: p.name, maxlength: "60", "data-seat": String(p.seat),
    "aria-label": `Name of the player in seat ${p.seat + 1}`,
  }));
  let names = game.player_list.map((p) => p.name);
  const gameName = el("input", { type: "text", id: "game-rename", value: game.name, maxlength: "100", placeholder: `Game ${game.id}` });
  const renameGame = el("form", { id: "rename-game" },
    el("label", { for: "game-rename", text: "Name of the game" }),
    el("div", { class: "row" }, gameName, el("button", { type: "submit", id: "save-game-name", text: "Rename the game" })));
  renameGame.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    try {
      const updated = await api("PATCH", `/api/games/${game.id}`, { name: gameName.value });
      gameName.value = updated.name;
      toast("The game was renamed.");
      if (document.getElementById("round-panel")) await refreshTable(game.id);
      else document.getElementById("game-title").textContent = `${updated.name || "Game " + updated.id} — ${updated.variant_title}`;
    } catch (error) {
      message.textContent = error.message;
    }
  });
  const rename = el("form", { id: "rename-players" },
    ...inputs.map((input, seat) => el("div", { class: "row" },
      el("label", { text: `Seat ${seat + 1}`, for: `player-name-${seat}` }), input)),
    el("button", { type: "submit", id: "save-names", text: "Save the names" }));
  rename.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    try {
      for (const input of inputs) {
        const seat = Number(input.dataset.seat);
        if (input.value.trim() === names[seat]) continue;
        const updated = await api("PATCH", `/api/games/${game.id}/players/${seat}`, { name: input.value });
        names = updated.player_list.map((p) => p.name);
        input.value = names[seat];
      }
      toast("Names saved.");
      await refreshTable(game.id);
    } catch (error) {
      message.textContent = error.message;
    }
  });
  const question = el("div", { class: "ask", role: "alertdialog", id: "delete-ask", "aria-labelledby": "delete-question", hidden: true },
    el("p", { class: "question", id: "delete-question", text: `Delete ${game.name || "game " + game.id} for good?` }),
    el("p", { text: "Its hands, scores, buys and photos are deleted too, on every device." }),
    el("div", { class: "row" },
      el("button", { type: "button", id: "delete-yes", text: "Yes, delete the game", onclick: async () => {
        try {
          await api("DELETE", `/api/games/${game.id}`);
          drafts.dropBefore(game.id, Infinity);
          toast("The game was deleted.");
          location.hash = "#/";
        } catch (error) {
          message.textContent = error.message;
        }
      } }),
      el("button", { type: "button", class: "secondary", id: "delete-no", text: "Keep it", onclick: () => {
        question.hidden = true;
        deleteButton.focus();
      } })));
  const deleteButton = el("button", { type: "button", class: "secondary", id: "delete-game", text: "Delete this game…",
    onclick: () => {
      question.hidden = false;
      document.getElementById("delete-no").focus();
    } });
  return el("details", { class: "panel", id: "game-panel" },
    el("summary", { class: "panel-title" }, el("h2", { text: "Players and game" })),
    renameGame, rename, el("div", { class: "row" }, deleteButton), question, message);
}

function livePanel(game) {
  const video = el("video", { id: "live-video", autoplay: true, muted: true, playsinline: true });
  const canvas = el("canvas", { id: "live-overlay" });
  const frame = el("div", { class: "live", id: "live-frame", hidden: true }, video, canvas);
  const status = el("p", { id: "live-status", class: "muted", text: "This device's camera is off." });
  const seen = el("div", { class: "chips", id: "live-cards" });
  const start = el("button", { id: "start-camera", text: "Start camera", onclick: () => startCamera() });
  const picker = el("select", { id: "camera-picker", "aria-label": "Camera", hidden: true });
  const serverImg = el("img", { id: "server-camera", alt: "server camera" });
  const serverFrame = el("div", { class: "live", hidden: true }, serverImg);
  // Another device's camera: the frame its steady table was read from, boxed.
  const watchedPicture = el("img", { id: "live-picture", class: "live-picture", alt: "", hidden: true });
  // The stable table beside the video (below it on a phone), folded on its own: each
  // seat's melds with their verdicts. From this device's camera, or from another
  // device streaming this game ("Live from …" in the panel's title, seen folded too).
  const liveFrom = el("span", { class: "live-from", id: "live-from", hidden: true });
  const tableBox = el("div", { id: "live-table-cards" });
  const tableFold = el("details", { class: "live-table", id: "live-table", open: true, hidden: true },
    el("summary", { text: "The steady table" }), tableBox);
  const showTable = (table, key) => {
    tableFold.hidden = false;
    ShanghaiLive.showTable(tableBox, table, key);
  };
  // Folded by default on a phone (the hands come first), open on a wider screen; the
  // choice made is kept on this device.
  const panel = el("details", { class: "panel", id: "live-panel", open: prefs.liveOpen() },
    el("summary", { class: "panel-title" }, el("h2", { text: "Live table" }), liveFrom),
    el("div", { class: "row" }, start, picker),
    el("div", { class: "live-split" }, el("div", { class: "live-media" }, frame, serverFrame, watchedPicture), tableFold),
    status, el("p", { class: "muted", text: "Cards seen steadily:" }), seen);
  panel.addEventListener("toggle", () => prefs.setLiveOpen(panel.open));

  // Another device streaming this game: its stable table, as it changes (the latest
  // state is kept, to show at once when that device takes this one's camera over).
  let watched = null;
  const showWatched = () => {
    const state = watched;
    if (!state || (view && view.running)) { // this device streams: its own answers show
      watchedPicture.hidden = true;
      return;
    }
    liveFrom.hidden = !state.streaming;
    liveFrom.textContent = state.streaming ? `Live from ${state.device}` : "";
    watchedPicture.hidden = !(state.streaming && state.table);
    if (state.streaming && state.table) {
      const src = `/api/live/picture.jpg?game=${game.id}&v=${state.table.version}`;
      if (watchedPicture.getAttribute("src") !== src) watchedPicture.src = src;
      watchedPicture.alt = `The table as ${state.device} sees it`;
    }
    if (state.streaming) showTable(state.table, `${state.device}:${state.table ? state.table.version : 0}`);
    else tableFold.hidden = true;
    showSeen(seen, state.table ? state.table.cards : [], Boolean(state.table));
  };
  const watcher = ShanghaiLive.watch(game.id, (state) => { watched = state; showWatched(); });
  const before = live;
  live = { video: null, stop() { watcher.close(); if (before) before.stop(); } };

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

  // The browser camera (live.js): the button starts and stops it; the picker changes it.
  let view = null;
  let streams = 0;
  async function startCamera(deviceId) {
    const was = view;
    view = null;
    if (was && was.running) { was.stop(); return; } // (not running: another device took over)
    const previous = live;
    const stream = ++streams;
    view = await ShanghaiLive.start({ video, canvas, frame, status, seen, start, picker, deviceId,
      game: game.id, device: prefs.who(), onTable: (table) => showTable(table, `own${stream}:${table.version}`),
      onTakenOver: showWatched, onRestart: (id) => { view = null; startCamera(id); } });
    if (!view) return;
    liveFrom.hidden = true;
    const own = view;
    live = { video, stop() { own.stop(); if (previous) previous.stop(); } };
  }
  return panel;
}

function showSeen(box, cards, stable) {
  box.replaceChildren(...cards.map((c) => el("span", { class: chipClass(c), text: cardLabel(c) })));
  box.dataset.stable = stable ? "yes" : "no";
}

function buysPanel(game, round) {
  const rows = round.buys.map((b) => {
    const message = el("span", { class: "error", role: "alert" });
    return el("div", { class: "row buy", id: `buys-${b.seat}` },
      el("strong", { text: b.player }),
      el("span", { class: "buys-left", text: `${b.left} of ${b.allowed} buys left` }),
      el("button", { type: "button", class: "buy-button", text: "+ Buy", "aria-label": `Buy for ${b.player}`, onclick: async () => {
        try {
          await api("POST", `/api/games/${game.id}/rounds/${round.number}/buys`, { player: b.seat, by: prefs.by() });
          await refreshTable(game.id);
        } catch (error) { message.textContent = error.message; }
      } }),
      el("button", { type: "button", class: "secondary undo-buy", text: "Undo", "aria-label": `Undo ${b.player}'s last buy`, disabled: b.used === 0, onclick: async () => {
        try {
          const by = prefs.by() ? `&by=${encodeURIComponent(prefs.by())}` : "";
          await api("DELETE", `/api/games/${game.id}/rounds/${round.number}/buys?player=${b.seat}${by}`);
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
  const input = el("input", { type: "text", id: "check-cards", placeholder: "7h 7s 7c | 4d 5d 6d 7d",
    enterkeyhint: "go", autocomplete: "off", autocapitalize: "off", spellcheck: "false" });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.isComposing) {
      event.preventDefault();
      check();
    }
  });
  const photo = el("input", { type: "file", accept: "image/*", capture: "environment", id: "check-photo" });
  const result = el("div", { id: "check-result" });
  const checkButton = el("button", { type: "button", id: "check-button", text: "Check", onclick: () => check() });
  // A photo's answer also brings its melds as text (put in the field, to edit and check
  // again), the cards lying outside every meld, and what to check.
  const show = (report, photoAnswer) => {
    if (photoAnswer && report.text !== null) input.value = report.text;
    result.replaceChildren(...[ // (replaceChildren writes null as the text "null")
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
            report.loose.map((c) => el("span", { class: chipClass(c), text: cardLabel(c) })))
        : null,
      ...report.reasons.filter((r) => !r.startsWith("meld ")).map((r) => el("p", { class: "error", text: r })),
      report.annotated_jpeg ? el("img", { class: "evidence", src: `data:image/jpeg;base64,${report.annotated_jpeg}`, alt: "checked lay-down" }) : null,
    ].filter(Boolean));
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
    const busy = busyLine();
    result.replaceChildren(busy);
    const stop = showBusy(busy, "Reading the lay-down");
    photo.disabled = checkButton.disabled = true;
    try {
      show(await api("POST", `/api/games/${game.id}/rounds/${roundSelect.value}/check-image`, form), true);
    } catch (error) {
      result.replaceChildren(el("p", { class: "error", text: error.message }));
    } finally {
      stop();
      photo.disabled = checkButton.disabled = false;
    }
  });
  return el("section", { class: "panel", id: "dispute-panel" },
    el("h2", { text: "Dispute check" }),
    el("label", { for: "check-round", text: "Round" }), roundSelect,
    el("label", { for: "check-cards", text: "Lay-down ('|' between melds, or ungrouped)" }), input,
    el("div", { class: "row" }, checkButton,
      el("label", { class: "muted photo-label" }, "or a photo: ", photo)),
    result);
}

// ---- score sheet -----------------------------------------------------------------------

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

async function showSheet(id) {
  const hash = location.hash || "#/";
  const sheet = await api("GET", `/api/games/${id}/sheet`);
  // The first column (round and contract) stays put while a narrow screen scrolls the
  // players' columns sideways.
  const head = el("tr", {}, el("th", { scope: "col", class: "round", text: "Round" }),
    sheet.players.map((p) => el("th", { scope: "col", text: p })));
  const firstOpen = sheet.rounds.find((r) => !r.complete);
  const body = sheet.rounds.map((r) => el("tr", { class: r === firstOpen ? "current" : "" },
    el("th", { scope: "row", class: "round" }, sheetRoundCell(id, r)),
    r.points.map((p, i) => el("td", {},
      p === null ? "" : String(p),
      r.totals ? el("div", { class: "muted", text: `Σ ${r.totals[i]}` }) : null))));
  const foot = el("tr", {}, el("th", { scope: "row", class: "round", text: "Total" }), sheet.totals.map((t) => el("td", { text: t })));
  const result = sheet.winners.length
    ? `Winner: ${sheet.winners.join(", ")}${sheet.loser ? ` · ${sheet.loser} reached ${sheet.target_score}` : ""}`
    : sheet.totals.some((t) => t !== 0) ? `Leading: ${sheet.leaders.join(", ")}` : "No rounds scored yet.";
  if (!drawView(hash,
    el("section", { class: "panel", id: "sheet-panel" },
      el("h1", { text: `${sheet.name || "Game " + sheet.game_id} — score sheet` }),
      el("p", { id: "sheet-result", class: sheet.winners.length ? "ok" : "", text: result }),
      el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Score sheet, scrolls sideways" },
        el("table", { class: "sheet", id: "score-sheet" },
        el("thead", {}, head), el("tbody", {}, body), el("tfoot", {}, foot))),
      el("div", { class: "row" },
        el("a", { class: "button secondary", href: `/api/games/${id}/sheet.csv`, id: "csv-link", text: "Download CSV" }),
        el("a", { class: "button secondary", href: `/games/${id}/print`, id: "print-link", target: "_blank", text: "Printable sheet" }))),
    el("section", { class: "panel chart", id: "chart" }, el("h2", { text: "Running totals" }), chart(sheet)))) return;
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
  // The names in the text colour (readable in either theme), each after a swatch of its line.
  const legend = el("div", { class: "legend" }, sheet.players.map((p, i) => {
    const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
    swatch.style.backgroundColor = COLOURS[i % COLOURS.length];
    return el("span", { class: "entry" }, swatch, p);
  }));
  return el("div", {}, svg, legend);
}
