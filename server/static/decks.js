// Teach a deck (#/decks, #/decks/NAME): photograph your own cards lying apart; every card
// found comes back cut out and straightened with the name the reader proposes, to confirm,
// correct or drop; the cards still missing are listed; "Adapt" teaches the reader in the
// background with a progress bar. A taught deck can also get its own locator and reader
// ("Teach its locator", when the server has the train extra): minutes of training in the background,
// its progress and Stop in the deck list. Also the new-game form's deck picker (`deckPicker`).
// The API is /api/decks (docs/server.md); helpers (el, api, toast, …) are app.js's.
"use strict";

const FAMILY_TITLE = { standard: "Standard (52 cards and the joker)", rook: "Rook (1-14 in four colours and the bird)" };
let deckPoll = null; // the adaptation being watched: its timer, stopped when the view changes

function stopDeckPoll() {
  if (deckPoll) clearTimeout(deckPoll);
  deckPoll = null;
}

async function showDecks(name) {
  const hash = location.hash || "#/";
  stopDeckPoll();
  if (name) return showDeckDraft(name);
  const decks = await api("GET", "/api/decks");
  const nameInput = el("input", { type: "text", id: "deck-name", maxlength: "40", autocomplete: "off",
    placeholder: "e.g. home", "aria-describedby": "deck-name-hint" });
  const family = el("select", { id: "deck-family" },
    Object.entries(FAMILY_TITLE).map(([value, text]) => el("option", { value, text })));
  const message = el("p", { class: "error", id: "deck-error", role: "alert" });
  const form = el("form", { id: "new-deck" },
    el("label", { for: "deck-name", text: "Deck name" }), nameInput,
    el("p", { class: "muted", id: "deck-name-hint", text: "Letters, digits, '_', '.' or '-'; no spaces." }),
    el("label", { for: "deck-family", text: "Kind of deck" }), family,
    el("button", { type: "submit", id: "start-deck", text: "Start teaching" }), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/.test(nameInput.value.trim())) {
      message.textContent = "A deck's name is up to 40 letters, digits, '_', '.' or '-', with no spaces.";
      nameInput.focus();
      return;
    }
    try {
      await api("POST", "/api/decks", { name: nameInput.value.trim(), family: family.value });
      location.hash = `#/decks/${encodeURIComponent(nameInput.value.trim())}`;
    } catch (error) {
      message.textContent = error.message;
      nameInput.focus();
    }
  });
  const list = decks.length
    ? el("ul", { id: "deck-list", class: "deck-list" }, decks.map(deckItem))
    : el("p", { class: "muted", id: "no-decks", text: "No deck taught yet." });
  const locatorHint = decks.some((d) => d.locator_teachable || d.locator)
    ? el("p", { class: "muted", id: "locator-hint", text: "Its own locator and reader find and read more "
      + "of a deck's cards (a Rook deck, an odd edition): about 14 minutes of this computer's time, in the "
      + "background." })
    : null;
  if (!drawView(hash,
    el("section", { class: "panel" }, el("h1", { text: "Teach a deck" }),
      el("p", { text: "Teach the scanner your own cards: lay some apart, face up, and photograph them. "
        + "Teach only the cards it misreads (jokers, an odd edition) or the whole deck." }),
      form),
    el("section", { class: "panel" }, el("h2", { text: "Your decks" }), list, locatorHint),
    el("p", {}, el("a", { href: "#/", text: "Back to the games" })))) return;
  const running = decks.find((d) => d.adapting && d.adapting.kind === "locator" && d.adapting.state === "running");
  if (running) watchLocator(running.name, running.adapting);
}

const LOCATOR_STAGES = { starting: "Starting", scenes: "Drawing photos of the deck", train: "Training its locator",
  reader: "Training its reader", export: "Writing its locator and reader",
  check: "Checking its reads on photos of its cards" };

// The locator being taught, in its deck's list item: a bar, what it is doing, Stop; polled
// until it ends, then the list is drawn again (with a toast, or the reason it stopped).
function watchLocator(name, state) {
  const item = document.getElementById(`deck-item-${name}`);
  if (!item) return;
  const view = location.hash;
  const box = item.querySelector(".locator-job");
  const bar = box.querySelector("progress");
  const status = box.querySelector(".locator-status");
  box.hidden = false;
  for (const button of document.querySelectorAll(".teach-locator, .teach-again, .remove-deck")) button.disabled = true;
  if (state.state !== "running") {
    stopDeckPoll();
    if (state.state === "done") toast(sentence(state.message));
    return route().then(() => {
      const again = document.querySelector(`#deck-item-${CSS.escape(name)} .deck-message`);
      if (again && state.state !== "done") again.textContent = sentence(state.message);
    });
  }
  bar.max = Math.max(state.total, 1);
  bar.value = state.done;
  const stage = LOCATOR_STAGES[state.stage] || state.stage;
  status.textContent = state.stage === "train" || state.stage === "reader"
    ? `${stage}… ${Math.floor(state.done / 60)} of ${Math.round(state.total / 60)} min`
    : state.stage === "scenes" || state.stage === "check"
      ? `${stage}… ${state.done} of ${state.total}` : `${stage}…`;
  deckPoll = setTimeout(async () => {
    if (location.hash !== view) return stopDeckPoll();
    try {
      watchLocator(name, await api("GET", `/api/decks/${encodeURIComponent(name)}/adapt`));
    } catch (error) {
      status.textContent = error.message;
    }
  }, 1500);
}

// A deck in the list: what it holds, and continue / teach again / remove (asked first).
function deckItem(d) {
  const message = el("span", { class: "error deck-message", role: "alert" });
  const item = el("li", { id: `deck-item-${d.name}` });
  const taught = d.stored ? `${plural(d.cards.length, "card")} taught` : "not adapted yet";
  const state = d.draft ? ` · being taught (${plural(d.draft.length, "card")} found)`
    : !d.adapted ? " · not adapted" : d.locator ? ` · its own locator${d.reader ? " and reader" : ""}` : "";
  const ask = el("div", { class: "ask", role: "alertdialog", hidden: true, "aria-label": `Remove deck ${d.name}?` },
    el("p", { class: "question", text: `Remove deck ${d.name}?` }),
    el("p", { text: "Games that read with it go back to the usual reading." }),
    el("div", { class: "row" },
      el("button", { type: "button", class: "remove-yes", text: "Yes, remove it", onclick: async () => {
        try {
          await api("DELETE", `/api/decks/${encodeURIComponent(d.name)}`);
          toast(`Deck ${d.name} was removed.`);
          await route();
        } catch (error) {
          message.textContent = error.message;
        }
      } }),
      el("button", { type: "button", class: "secondary remove-no", text: "Keep it", onclick: () => {
        ask.hidden = true;
        remove.focus();
      } })));
  const remove = el("button", { type: "button", class: "secondary small remove-deck", text: "Remove…",
    "aria-label": `Remove deck ${d.name}…`, onclick: () => {
      ask.hidden = false;
      ask.querySelector(".remove-no").focus();
    } });
  const open = d.draft
    ? el("a", { class: "button small", href: `#/decks/${encodeURIComponent(d.name)}`, text: "Continue",
      "aria-label": `Continue teaching ${d.name}` })
    : el("button", { type: "button", class: "secondary small teach-again", text: "Teach again",
      "aria-label": `Teach ${d.name} again`, onclick: async () => {
        try {
          await api("POST", `/api/decks/${encodeURIComponent(d.name)}/reenrol`);
          location.hash = `#/decks/${encodeURIComponent(d.name)}`;
        } catch (error) {
          message.textContent = error.message;
        }
      } });
  const teachLocator = d.locator_teachable
    ? el("button", { type: "button", class: "secondary small teach-locator",
      text: d.locator ? "Teach its locator again" : "Teach its locator",
      "aria-label": `Teach ${d.name} its own locator`, onclick: async () => {
        message.textContent = "";
        try {
          watchLocator(d.name, await api("POST", `/api/decks/${encodeURIComponent(d.name)}/locator`));
        } catch (error) {
          message.textContent = error.message;
        }
      } })
    : null;
  const stop = el("button", { type: "button", class: "secondary small stop-locator", text: "Stop",
    "aria-label": `Stop teaching ${d.name} its locator`, onclick: async () => {
      try {
        await api("DELETE", `/api/decks/${encodeURIComponent(d.name)}/adapt`);
      } catch (error) {
        message.textContent = error.message;
      }
    } });
  const job = el("div", { class: "locator-job", hidden: true },
    el("progress", { max: "1", value: "0", "aria-label": `Teaching ${d.name} its locator` }),
    el("div", { class: "row" }, el("span", { class: "locator-status", role: "status" }), stop));
  item.append(
    el("div", { class: "game-line" },
      el("span", {}, el("strong", { text: d.name }), ` — ${d.family}, ${taught}`,
        el("span", { class: "muted", text: `, ${plural(d.missing.length, "card")} missing${state}` })),
      el("span", { class: "row deck-actions" }, teachLocator, open, remove)),
    job, ask, message);
  return item;
}

// One deck being taught: photos in, the cards found, the cards missing, "Adapt".
async function showDeckDraft(name) {
  const hash = location.hash || "#/";
  const path = `/api/decks/${encodeURIComponent(name)}`;
  let deck = await api("GET", path);
  if (!deck.draft && !(deck.adapting && deck.adapting.state === "running")) {
    location.hash = "#/decks";
    return;
  }
  const photo = el("input", { type: "file", id: "deck-photo", accept: "image/*", capture: "environment" });
  const busy = el("p", { class: "busy", role: "status", hidden: true });
  const message = el("p", { class: "error", id: "deck-photo-error", role: "alert" });
  const grid = el("ul", { id: "deck-cards", class: "deck-cards", "aria-label": "Cards found" });
  const missing = el("div", { id: "deck-missing" });
  const adaptButton = el("button", { type: "button", id: "adapt-deck", text: "Adapt" });
  const stopButton = el("button", { type: "button", id: "stop-adapt", class: "secondary", text: "Stop", hidden: true });
  const bar = el("progress", { id: "adapt-progress", max: "1", value: "0", "aria-labelledby": "adapt-status", hidden: true });
  const status = el("p", { id: "adapt-status", role: "status" });
  const adaptError = el("p", { class: "error", id: "adapt-error", role: "alert" });
  const view = location.hash;

  const drawCards = () => {
    grid.replaceChildren(...(deck.draft || []).map((card) => deckCard(deck, card, path, refresh)));
    const cards = deck.missing;
    missing.replaceChildren(
      el("h2", { id: "missing-title", text: cards.length ? `Still missing: ${plural(cards.length, "card")}` : "Every card is taught" }),
      el("p", { class: "muted", text: "Cards not taught keep the usual reading." }),
      el("div", { class: "chips", role: "list", "aria-labelledby": "missing-title" },
        cards.map((c) => el("span", { class: chipClass(c), role: "listitem", "aria-label": cardName(c), text: cardLabel(c) }))));
    const named = (deck.draft || []).filter((c) => c.card).length;
    adaptButton.disabled = !named;
    adaptButton.textContent = named ? `Adapt to ${plural(named, "card")}` : "Adapt";
  };
  async function refresh() {
    deck = await api("GET", path);
    drawCards();
  }

  photo.addEventListener("change", async () => {
    if (!photo.files.length) return;
    const form = new FormData();
    form.append("image", photo.files[0]);
    photo.value = "";
    message.textContent = "";
    const stop = showBusy(busy, "Finding the cards");
    photo.disabled = true;
    try {
      const answer = await api("POST", `${path}/photos`, form);
      deck = answer.deck;
      drawCards();
      toast(`${plural(answer.found.length, "card")} found: check each name below.`);
    } catch (error) {
      message.textContent = error.message;
    } finally {
      stop();
      photo.disabled = false;
    }
  });

  const watch = (state) => {
    const running = state && state.state === "running";
    bar.hidden = !running;
    stopButton.hidden = !running;
    adaptButton.hidden = running;
    photo.disabled = running;
    for (const control of grid.querySelectorAll("select, button")) control.disabled = running;
    if (!state) return;
    if (running) {
      bar.max = Math.max(state.total, 1);
      bar.value = state.done;
      const stage = { photos: "Finding the cards", crops: "Reading the cards", fit: "Fitting the reader", starting: "Starting" }[state.stage] || state.stage;
      status.textContent = `${stage}… ${state.done} of ${state.total}`;
      deckPoll = setTimeout(async () => {
        if (location.hash !== view) return stopDeckPoll();
        try {
          watch(await api("GET", `${path}/adapt`));
        } catch (error) {
          adaptError.textContent = error.message;
        }
      }, 600);
      return;
    }
    status.textContent = "";
    if (state.state === "done") {
      toast(sentence(state.message));
      location.hash = "#/decks";
    } else {
      adaptError.textContent = sentence(state.message);
    }
  };
  adaptButton.addEventListener("click", async () => {
    adaptError.textContent = "";
    try {
      watch(await api("POST", `${path}/adapt`));
    } catch (error) {
      adaptError.textContent = error.message;
    }
  });
  stopButton.addEventListener("click", async () => {
    try {
      await api("DELETE", `${path}/adapt`);
    } catch (error) {
      adaptError.textContent = error.message;
    }
  });

  if (!drawView(hash,
    el("section", { class: "panel" },
      el("h1", { text: `Teaching ${deck.name}` }),
      el("p", { class: "muted", text: FAMILY_TITLE[deck.family] || deck.family }),
      el("label", { for: "deck-photo", text: "Take or choose a photo of some cards" }),
      el("p", { class: "muted", id: "deck-photo-hint", text: "Lay them apart, face up, in good light; one or many per photo." }),
      photo, busy, message),
    el("section", { class: "panel" }, el("h2", { text: "Cards found" }),
      el("p", { class: "muted", text: "Check each name; change it if it is wrong, or drop what is not a card of this deck." }),
      grid),
    el("section", { class: "panel" }, missing),
    el("section", { class: "panel", id: "adapt-panel" },
      el("h2", { text: "Adapt the reader" }),
      el("p", { class: "muted", text: "Takes a few minutes for a whole deck; you can go on using the page." }),
      el("div", { class: "row" }, adaptButton, stopButton), bar, status, adaptError),
    el("p", {}, el("a", { href: "#/decks", text: "Back to the decks" })))) return;
  photo.setAttribute("aria-describedby", "deck-photo-hint");
  drawCards();
  watch(deck.adapting && deck.adapting.state === "running" ? deck.adapting : null);
}

// A card as the picker shows it: 7♥, 10♠, 5 red, joker, the Rook.
function shortCard(card) {
  return cardLabel(card) === card ? cardName(card) : cardLabel(card);
}

// A card found: its picture, its name (a picker of the family's cards), and "Drop".
function deckCard(deck, card, path, refresh) {
  const id = `deck-card-${card.id}`;
  const message = el("p", { class: "error", role: "alert" });
  const picker = el("select", { id: `${id}-name`, class: "deck-card-name" },
    card.card ? null : el("option", { value: "", text: "— name it —" }),
    deck.family_cards.map((c) => el("option", { value: c, text: shortCard(c), selected: c === card.card })));
  picker.addEventListener("change", async () => {
    message.textContent = "";
    try {
      await api("PATCH", `${path}/cards/${card.id}`, { card: picker.value });
      await refresh();
      document.getElementById(`${id}-name`)?.focus();
    } catch (error) {
      picker.value = card.card || "";
      message.textContent = error.message;
    }
  });
  const drop = el("button", { type: "button", class: "secondary small drop-card", text: "Drop",
    "aria-label": `Drop card ${card.id}`, onclick: async () => {
      try {
        await api("DELETE", `${path}/cards/${card.id}`);
        await refresh();
        (document.querySelector(".deck-card-name") || document.getElementById("deck-photo")).focus();
      } catch (error) {
        message.textContent = error.message;
      }
    } });
  const read = card.proposal === card.card || !card.card
    ? `Read as ${shortCard(card.proposal)} (${Math.round(card.confidence * 100)}%)`
    : `Read as ${shortCard(card.proposal)}, named by you`;
  return el("li", { class: "deck-card", id },
    el("img", { src: card.face_url, alt: `Card ${card.id} as found in photo ${card.photo || "stored"}`, loading: "lazy" }),
    el("label", { for: `${id}-name`, text: `Card ${card.id}` }),
    picker,
    el("p", { class: "muted read-as", text: read }),
    card.note ? el("p", { class: "note", text: card.note }) : null,
    drop, message);
}

// The new-game form's deck picker: the adapted decks of the chosen variant's family.
function deckPicker(variants, variantSelect) {
  const select = el("select", { id: "game-deck" });
  const row = el("div", { id: "deck-row", hidden: true },
    el("label", { for: "game-deck", text: "Deck the scans read with" }), select,
    el("p", { class: "muted" }, "Your own cards, taught on ", el("a", { href: "#/decks", text: "Teach a deck" }), "."));
  let decks = [];
  const fill = () => {
    const chosen = variants.find((v) => v.name === variantSelect.value);
    const family = chosen ? chosen.family : "standard";
    const fitting = decks.filter((d) => d.adapted && d.family === family);
    select.replaceChildren(el("option", { value: "", text: "The usual reading (no taught deck)" }),
      ...fitting.map((d) => el("option", { value: d.name, text: `${d.name} (${plural(d.cards.length, "card")} taught)` })));
    row.hidden = !fitting.length;
  };
  variantSelect.addEventListener("change", fill);
  api("GET", "/api/decks").then((answer) => {
    decks = answer;
    fill();
  }).catch(() => {});
  return { row, value: () => (row.hidden ? "" : select.value) };
}
