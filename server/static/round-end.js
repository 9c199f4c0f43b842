// The round end: each player's cards left (scanned, typed or clicked), one photo of the
// whole table given out hand by hand, and the confirm that scores a hand.
//
// Nothing typed is lost: the entries not confirmed yet are the editors kept here (by
// seat) across every redraw (another player's confirm, a buy, an update from another
// device), and each is also kept in localStorage (drafts.js) until it is confirmed, so a
// reload or a trip to the score sheet brings it back.
"use strict";

// The round end's entries not saved yet: each open player's editor ({node, take, release,
// holds, cards, sent}, by seat), each correction being made ({node, hand}, by seat), the
// last whole-table photo ({scan, given: sector -> seat}), and the freshest game and
// round (a kept editor was drawn with older ones).
let roundEnd = { key: null, editors: {}, fixes: {}, table: null, game: null, round: null };

// One player's round end: scan or type or click the cards left, see the points, confirm.
function roundPanel(game, round) {
  const key = `${game.id}/${round.number}`;
  if (roundEnd.key !== key) {
    roundEnd = { key, editors: {}, fixes: {}, table: drafts.load(tableDraftKey(game, round)) };
    drafts.dropBefore(game.id, round.number, true);
  }
  roundEnd.game = game;
  roundEnd.round = round;
  const grid = el("div", { class: "grid" });
  const stored = Object.fromEntries(round.hands.map((h) => [h.seat, h]));
  for (const player of game.player_list) {
    const hand = stored[player.seat];
    let unsent = null;
    if (hand) {
      const kept = roundEnd.editors[player.seat];
      // saved from another device while this one had other cards typed: say so
      if (kept && !kept.sent && kept.cards().length && kept.cards().join(" ") !== hand.cards.join(" ")) {
        unsent = kept.cards();
      }
      delete roundEnd.editors[player.seat];
      drafts.drop(drafts.key(game.id, round.number, `seat${player.seat}`));
      const fix = roundEnd.fixes[player.seat];
      if (fix && !sameHand(fix.hand, hand)) {
        delete roundEnd.fixes[player.seat];
        drafts.drop(drafts.key(game.id, round.number, `fix${player.seat}`));
      }
    }
    grid.append(playerHand(game, round, player, hand, unsent));
  }
  return el("section", { class: "panel", id: "round-panel", "data-game": game.id },
    el("h2", { text: `Round ${round.number} end: cards left` }),
    el("p", { class: "muted", text: "Scan each hand or enter it by text or clicks; an empty hand went out." }),
    tableScan(game, round, stored),
    grid);
}

function sameHand(a, b) {
  return a.id === b.id && a.points === b.points && a.cards.join(" ") === b.cards.join(" ")
    && a.corrections.length === b.corrections.length;
}

function tableDraftKey(game, round) {
  return drafts.key(game.id, round.number, "table");
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
  const photo = el("input", { type: "file", accept: "image/*", capture: "environment", id: "table-photo",
    hidden: true, "aria-label": "Photo of the whole table" });
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
  const keep = () => drafts.save(tableDraftKey(game, round), roundEnd.table);

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
    keep();
    draw();
    const again = list.querySelector(`[data-seat="${sector}"] .give`);
    if (again) again.focus();
  };
  const seatRow = (scan, hand) => {
    const name = seatName(scan, hand.seat);
    const held = holder(scan, hand.seat);
    const nameOf = (seat) => game.player_list.find((p) => p.seat === seat).name;
    const cards = el("p", { class: "seat-cards" }, el("strong", { text: `${name}:` }), " ",
      hand.cards.flatMap((c) => [el("span", { class: chipClass(c), text: cardLabel(c) }), " "]),
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
    list.replaceChildren(...[
      warningBox(scan.warnings, "Check the table photo:"),
      scan.seats.length
        ? el("p", { class: "muted", text: "Hands found, seat 1 nearest the bottom of the photo, then clockwise:" })
        : el("p", { class: "muted", text: "No hand found in the photo." }),
      scan.seats.length ? el("ul", { class: "seat-hands" }, scan.seats.map((hand) => seatRow(scan, hand))) : null,
      el("img", { class: "evidence", src: scan.annotated_url, alt: "the table photo, each card read boxed" }),
    ].filter(Boolean));
  };
  const send = async (blob, source) => {
    const form = new FormData();
    form.append("player", String(open[0].seat)); // the record's; any player may confirm from it
    form.append("source", source);
    form.append("photo", "table");
    form.append("image", blob, "table.jpg");
    message.textContent = "";
    const stop = showBusy(busy, "Reading the table");
    photoButton.disabled = liveButton.disabled = true;
    try {
      const scan = await api("POST", `/api/games/${game.id}/rounds/${round.number}/scans`, form);
      roundEnd.table = { scan, given: {} };
      keep();
      draw();
    } catch (error) {
      message.textContent = error.message;
    } finally {
      stop();
      photoButton.disabled = liveButton.disabled = false;
    }
  };
  const fromLive = photoSources(photo, send, message, "Start the camera first (or take a photo).");
  draw();
  return block;
}

function playerHand(game, round, player, hand, unsent = null) {
  if (hand) {
    const fix = roundEnd.fixes[player.seat];
    if (fix) return renamed(fix.node, player);
    const draft = drafts.load(drafts.key(game.id, round.number, `fix${player.seat}`));
    if (draft) return handEditor(game, round, player, hand, draft).node;
    return savedHand(game, round, player, hand, unsent);
  }
  const kept = roundEnd.editors[player.seat];
  if (kept) return renamed(kept.node, player);
  return handEditor(game, round, player, null,
    drafts.load(drafts.key(game.id, round.number, `seat${player.seat}`))).node;
}

// A kept box under the player's name now (renamed meanwhile): its title, and the name
// in its buttons' spoken labels ("Photo of Ann's hand").
function renamed(node, player) {
  const before = node.dataset.player;
  if (before === player.name) return node;
  node.dataset.player = player.name;
  node.querySelector("h3 > span").textContent = player.name;
  for (const labelled of node.querySelectorAll("[aria-label]")) {
    labelled.setAttribute("aria-label", labelled.getAttribute("aria-label").split(`${before}'s`).join(`${player.name}'s`));
  }
  return node;
}

function savedHand(game, round, player, hand, unsent) {
  const box = el("div", { class: "player", id: `player-${player.seat}`, "data-player": player.name });
  box.append(...[
    el("h3", {}, el("span", { text: player.name }), el("span", { class: "points", text: `${hand.points} pts` })),
    el("div", { class: "chips saved-cards" }, hand.cards.map((c) => el("span", { class: chipClass(c), text: cardLabel(c) }))),
    el("p", { class: "ok", text: hand.went_out ? `Went out${hand.blind ? " blind" : ""} ✓ saved` : "✓ saved" }),
    hand.corrections.length
      ? el("p", { class: "muted", text: `Corrections: ${hand.corrections.map((c) => `${c.action} ${c.card}`).join(", ")}` })
      : null,
    unsent
      ? el("p", { class: "note unsent", text: `Saved from another device first. Not sent from here: ${unsent.map(cardLabel).join(" ")} (use Correct if that was right).` })
      : null,
    el("button", { type: "button", class: "secondary correct", text: "Correct",
      "aria-label": `Correct ${player.name}'s hand`, onclick: () => {
        const editor = handEditor(game, round, player, hand, null);
        box.replaceWith(editor.node);
        editor.focus();
      } }),
  ].filter(Boolean));
  return box;
}

// A box to enter one player's cards: a new hand (`hand` null) or a correction of the
// stored one. `draft` is what was entered before (a reload, another visit).
function handEditor(game, round, player, hand, draft) {
  const correcting = hand !== null;
  const draftKey = drafts.key(game.id, round.number, `${correcting ? "fix" : "seat"}${player.seat}`);
  const node = el("div", { class: "player", id: `player-${player.seat}`, "data-player": player.name });
  let scanId = null;
  let scanSeat = null; // a whole-table photo: the seat (sector) whose hand this is
  let scanned = null; // the last scan's cards (with `sure`) and warnings
  let shown = null; // the scan's evidence to show again: {image} or {table: "seat 2 (left)"}
  const input = el("input", { type: "text", class: "cards-input", "aria-label": `${player.name}'s cards`,
    enterkeyhint: "done", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
    placeholder: "e.g. 7h 10s JK", value: hand ? hand.cards.join(" ") : "" });
  const chips = el("div", { class: "chips" });
  const pts = el("span", { class: "points" });
  const message = el("p", { class: "error", role: "alert" });
  const blind = el("input", { type: "checkbox", class: "blind" });
  const evidence = el("div", { class: "evidence-box" });
  const notes = el("div", { class: "scan-notes" });
  const busy = busyLine();
  busy.hidden = true;
  const question = el("div", { class: "ask", role: "alertdialog", "aria-labelledby": `ask-${player.seat}`, hidden: true,
    onkeydown: (event) => { if (event.key === "Escape") { question.hidden = true; input.focus(); } } });
  const cards = () => splitCards(input.value);
  // Kept on this device until confirmed; an editor with nothing in it keeps nothing.
  const persist = () => {
    const before = correcting ? hand.cards.join(" ") : "";
    if (cards().join(" ") === before && !blind.checked && scanId === null) drafts.drop(draftKey);
    else {
      drafts.save(draftKey, { cards: input.value, blind: blind.checked,
        scan: scanId === null ? null : { id: scanId, seat: scanSeat, scanned, shown } });
    }
  };
  // Reads below the sure level, by name: a chip with such a card is marked until removed.
  const unsureReads = () => {
    const counts = {};
    for (const card of scanned ? scanned.cards : []) if (!card.sure) counts[card.card] = (counts[card.card] || 0) + 1;
    return counts;
  };
  let asked = 0; // the points asked for, in order: only the latest answer is shown
  const refresh = async () => {
    const list = cards();
    const unsure = unsureReads();
    question.hidden = true;
    persist();
    chips.replaceChildren(...list.map((c, i) => {
      const doubt = unsure[c] > 0;
      if (doubt) unsure[c] -= 1;
      return el("button", {
        type: "button", class: chipClass(c, doubt ? "unsure" : ""),
        title: doubt ? "unsure read: check it (click to remove)" : "remove",
        "aria-label": doubt ? `${cardName(c)}, unsure: check it` : `${cardName(c)}, remove`,
        onclick: () => {
          list.splice(i, 1);
          input.value = list.join(" ");
          refresh();
          // the focus stays in the chips (on the next one), or goes back to the text
          const next = chips.children[Math.min(i, chips.children.length - 1)];
          (next || input).focus();
        },
      }, cardLabel(c), doubt ? el("span", { class: "doubt", "aria-hidden": "true", text: "?" }) : null);
    }));
    const mine = ++asked;
    try {
      const result = await api("POST", `/api/games/${game.id}/points`, { cards: input.value });
      if (mine !== asked) return;
      pts.textContent = `${result.points} pts`;
      message.textContent = "";
    } catch (error) {
      if (mine !== asked) return;
      pts.textContent = "";
      message.textContent = error.message;
    }
  };
  input.addEventListener("input", refresh);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.isComposing) {
      event.preventDefault();
      save(false, false);
    }
  });
  blind.addEventListener("change", persist);
  const picker = el("div", { class: "picker" }, deckRows(game.cards_in_play).map((row) =>
    el("div", { class: "suit-row", role: "group", "aria-label": row.name }, row.cards.map((c) => el("button", {
      type: "button", class: `pick ${suitClass(c)}${cardLabel(c).length > 3 ? " wide" : ""}`, text: cardLabel(c), "data-card": c,
      "aria-label": `add ${cardName(c)}`,
      onclick: () => { input.value = [...cards(), c].join(" "); refresh(); },
    })))));
  const photo = el("input", { type: "file", accept: "image/*", capture: "environment", class: "scan-file",
    hidden: true, "aria-label": `Photo of ${player.name}'s hand` });
  const photoButton = el("button", { type: "button", class: "secondary scan-photo", text: "Photo",
    "aria-label": `Photo of ${player.name}'s hand`, onclick: () => photo.click() });
  const liveButton = el("button", { type: "button", class: "secondary scan-live", text: "Scan from camera",
    "aria-label": `Scan ${player.name}'s hand from the camera`, onclick: () => fromLive() });
  const saveButton = el("button", { type: "button", class: "save", text: correcting ? "Save correction" : "Confirm",
    "aria-label": `${correcting ? "Save the correction of" : "Confirm"} ${player.name}'s hand`, onclick: () => save(false, false) });
  const cancelButton = correcting
    ? el("button", { type: "button", class: "secondary cancel-fix", text: "Cancel", onclick: () => {
        delete roundEnd.fixes[player.seat];
        drafts.drop(draftKey);
        node.replaceWith(savedHand(game, round, player, hand, null));
      } })
    : null;
  let stopBusy = () => {};
  const setBusy = (on) => {
    if (on) stopBusy = showBusy(busy, "Reading the cards");
    else stopBusy();
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
  const showScan = () => {
    const unsure = scanned.cards.some((c) => !c.sure);
    evidence.replaceChildren(
      shown.table
        ? el("p", { class: "from-table", text: `From the table photo: ${shown.table}.` })
        : el("img", { class: "evidence", src: shown.image, alt: "scanned cards" }),
      el("p", { class: "muted", text: unsure
        ? "Check the cards, above all those marked ?: click one to remove it, add any missed, then confirm."
        : "Check the cards: click one to remove it, add any missed, then confirm." }));
    const box = shown.table ? null : warningBox(scanned.warnings, "Check before confirming:");
    notes.replaceChildren(...(box ? [box] : []));
  };
  // A scan's cards to check: a photo of this hand (sector null), or the hand at one
  // sector of a whole-table photo (whose warnings are shown once, above its list).
  const take = (result, sector) => {
    const table = sector !== null;
    scanId = result.id;
    scanSeat = sector;
    scanned = table ? { cards: result.cards.filter((c) => c.seat === sector), warnings: [] }
      : { cards: result.cards, warnings: result.warnings };
    shown = table ? { table: seatName(result, sector).toLowerCase() } : { image: result.annotated_url };
    input.value = (table ? result.seats.find((s) => s.seat === sector).cards : result.proposed).join(" ");
    message.textContent = "";
    question.hidden = true;
    showScan();
    refresh();
  };
  // The table photo's hand given to another player: this box is emptied again.
  const release = (id, sector) => {
    if (scanId !== id || scanSeat !== sector) return;
    scanId = scanSeat = scanned = shown = null;
    input.value = "";
    evidence.replaceChildren();
    notes.replaceChildren();
    refresh();
  };
  const fromLive = photoSources(photo, scan, message, "Start the camera first (or upload a photo).");
  // A question before a confirm, answered by a button (Escape or Cancel: back to the cards).
  const ask = (questionText, detail, yes, onYes) => {
    question.replaceChildren(
      el("p", { id: `ask-${player.seat}`, class: "question", text: questionText }),
      el("p", { class: "muted", text: detail }),
      el("div", { class: "row" },
        el("button", { type: "button", class: "confirm-yes", text: yes,
          onclick: () => { question.hidden = true; onYes(); } }),
        el("button", { type: "button", class: "secondary cancel-ask", text: "Cancel",
          onclick: () => { question.hidden = true; input.focus(); } })));
    question.hidden = false;
    question.querySelector(".confirm-yes").focus();
  };
  // An empty hand from a scan that saw cards (or could not be trusted) is asked first.
  const askOut = (nobodyChecked) => {
    const read = scanned.cards.map((c) => cardLabel(c.card)).join(" ");
    ask(`No cards left: did ${player.name} go out?`,
      scanned.cards.length
        ? `The scan read ${plural(scanned.cards.length, "card")}: ${read}.`
        : `The scan said: ${scanned.warnings[0].message}.`,
      `Yes, ${player.name} went out`, () => save(true, nobodyChecked));
    question.querySelector(".confirm-yes").classList.add("confirm-out");
    question.querySelector(".cancel-ask").classList.add("cancel-out");
  };
  const save = async (confirmOut, nobodyChecked) => {
    message.textContent = "";
    const empty = cards().length === 0;
    const latest = roundEnd.round || round;
    const others = latest.hands.filter((h) => h.seat !== player.seat);
    const out = others.find((h) => h.went_out);
    if (empty && out) {
      message.textContent = `${out.player} already went out this round, and only one player can go out: `
        + `enter the cards ${player.name} has left.`;
      input.focus();
      return;
    }
    const doubtful = scanned && (scanned.cards.length > 0 || scanned.warnings.length > 0);
    if (!correcting && scanId !== null && empty && doubtful && !confirmOut) {
      askOut(nobodyChecked);
      return;
    }
    const last = others.length === game.player_list.length - 1;
    if (last && !empty && !out && !nobodyChecked) {
      ask(`Nobody went out in round ${round.number}?`,
        `Every other hand has cards left, and so does ${player.name}'s: the round ends with nobody out.`,
        "Yes, nobody went out", () => save(confirmOut, true));
      return;
    }
    const body = { cards: input.value, blind: blind.checked, by: prefs.by() };
    saveButton.disabled = true;
    try {
      if (correcting) await api("PUT", `/api/games/${game.id}/rounds/${round.number}/hands/${player.seat}`, body);
      else {
        await api("POST", `/api/games/${game.id}/rounds/${round.number}/hands`,
          { ...body, player: player.seat, scan_id: scanId, scan_seat: scanSeat ?? undefined,
            confirm_out: confirmOut && empty });
      }
      self.sent = true;
      drafts.drop(draftKey);
      if (correcting) delete roundEnd.fixes[player.seat];
      await refreshTable(game.id);
    } catch (error) {
      message.textContent = error.message;
    } finally {
      saveButton.disabled = false;
    }
  };
  node.append(...[
    el("h3", {}, el("span", { text: player.name }), pts),
    el("div", { class: "row" }, photoButton, liveButton, photo),
    busy, evidence, notes, input, chips,
    el("details", { class: "pick-cards" }, el("summary", { text: "Pick cards" }), picker),
    el("label", { class: "muted check" }, blind, " went out blind (all cards in one play)"),
    el("div", { class: "row" }, saveButton, cancelButton),
    question, message,
  ].filter(Boolean));

  if (draft) {
    input.value = draft.cards || "";
    blind.checked = Boolean(draft.blind);
    if (draft.scan) {
      ({ id: scanId, seat: scanSeat, scanned, shown } = draft.scan);
      if (scanned && shown) showScan();
    }
  }
  refresh();
  const self = {
    node, take, release, sent: false, cards,
    holds: (id, sector) => scanId === id && scanSeat === sector,
    focus: () => input.focus(),
  };
  if (correcting) roundEnd.fixes[player.seat] = { node, hand };
  else roundEnd.editors[player.seat] = self;
  return self;
}
