// Corrections with a history: any round already played opened again (#/games/ID/rounds/N)
// to correct its hands and buys, a finished game's too; the game's last change undone;
// a finished game reopened; each round's history (who changed what, when) shown from the
// "edited" mark on the score sheet and under the round. Every change is sent with this
// device's name (prefs.by()), or the server records "host".
"use strict";

// A question asked in the page before a change ("Keep it" folds it away).
function askBox(id, question, detail, yes, onYes) {
  const box = el("div", { class: "ask", role: "alertdialog", id, "aria-label": question, hidden: true },
    el("p", { class: "question", text: question }),
    el("p", { class: "ask-detail", text: detail }),
    el("div", { class: "row" },
      el("button", { type: "button", class: "confirm-yes", text: yes, onclick: () => onYes() }),
      el("button", { type: "button", class: "secondary cancel-ask", text: "Keep it", onclick: () => {
        box.hidden = true;
      } })));
  box.open = (said) => {
    if (said) box.querySelector(".ask-detail").textContent = said;
    box.hidden = false;
    box.querySelector(".cancel-ask").focus();
  };
  return box;
}

function whenSaid(at) {
  return new Date(at).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

// Why the last undo or reopen was refused, per game. It is kept outside the header because
// the header is drawn anew when another device changes the game (the usual reason for a
// refusal), and a refusal that vanishes with the redraw leaves the person guessing.
const refusal = { game: null, text: "" };

// The table's header: undo the last change, reopen a finished game, open a past round.
function changeControls(game) {
  const message = el("p", { class: "error", id: "change-error", role: "alert",
    text: refusal.game === game.id ? refusal.text : "" });
  const say = (text) => {
    Object.assign(refusal, { game: game.id, text });
    message.textContent = text;
  };
  // Refused: the question is folded away and the table drawn as it is now, then the reason
  // is said (by the new header, which reads `refusal`), so nothing shown belongs to the old one.
  const refused = async (error, ask) => {
    ask.hidden = true;
    if (error.status !== 409) return say(error.message);
    Object.assign(refusal, { game: game.id, text: error.message });
    try {
      await refreshTable(game.id);
    } catch (_offline) {
      say(error.message);
    }
  };
  let pending = null;
  const undoAsk = askBox("undo-ask", "Undo the last change?", "", "Yes, undo it", async () => {
    try {
      const answer = await api("POST", `/api/games/${game.id}/undo`, { by: prefs.by(), change: pending.id });
      undoAsk.hidden = true;
      // The page is drawn anew before it says so: an "Undo" pressed on seeing the toast
      // then asks about the change that is last now, not the one just undone.
      await route();
      toast(`Undone: ${answer.undone.summary}.`);
    } catch (error) {
      await refused(error, undoAsk);
    }
  });
  const undoButton = el("button", { type: "button", class: "secondary", id: "undo-last", text: "Undo the last change…",
    onclick: async () => {
      say("");
      try {
        const changes = await api("GET", `/api/games/${game.id}/changes`);
        pending = changes.filter((c) => !c.undone_at).pop() || null;
        if (!pending) {
          say("Nothing to undo: no change of this game is left to take back.");
          return;
        }
        undoAsk.open(`Round ${pending.round}: ${pending.summary} (by ${pending.by}, ${whenSaid(pending.at)}).`);
      } catch (error) {
        say(error.message);
      }
    } });
  const controls = [undoButton];
  const asks = [undoAsk];
  if (game.finished) {
    const reopenAsk = askBox("reopen-ask", "Reopen the last round?",
      "The hand entered last is taken back, with its cards ready to enter again; everything else stays. Undo puts it back.",
      "Yes, reopen it", async () => {
        try {
          const reopened = await api("POST", `/api/games/${game.id}/reopen`, { by: prefs.by() });
          const change = (await api("GET", `/api/games/${game.id}/changes?round=${reopened.current_round}`))
            .filter((c) => c.kind === "reopened").pop();
          if (change && change.before) {
            drafts.save(drafts.key(game.id, reopened.current_round, `seat${change.seat}`),
              { cards: change.before.cards.join(" "), blind: change.before.blind });
          }
          await route();
          toast(`Round ${reopened.current_round} is open again.`);
        } catch (error) {
          await refused(error, reopenAsk);
        }
      });
    controls.push(el("button", { type: "button", class: "secondary", id: "reopen-game", text: "Reopen the last round…",
      onclick: () => { say(""); reopenAsk.open(); } }));
    asks.push(reopenAsk);
  }
  const played = game.rounds_scored;
  const links = played
    ? el("p", { class: "past-rounds" }, "Correct a round: ",
        Array.from({ length: played }, (_, i) => el("a", { href: `#/games/${game.id}/rounds/${i + 1}`,
          class: "round-link", "aria-label": `Correct round ${i + 1}`, text: String(i + 1) })))
    : null;
  return el("div", { class: "changes" }, el("div", { class: "row" }, controls), ...asks, links, message);
}

// A round already played, to correct: its hands (each with "Correct"), its buys (+ and
// undo), and its history.
async function showPastRound(id, number) {
  const hash = location.hash || "#/";
  const game = await api("GET", `/api/games/${id}`);
  if (game.current_round === number) {
    location.hash = `#/games/${id}`;
    return;
  }
  if (number > game.rounds_scored) throw new Error(`Round ${number} has not been played yet.`);
  const [round, changes] = await Promise.all([
    api("GET", `/api/games/${id}/rounds/${number}`),
    api("GET", `/api/games/${id}/changes?round=${number}`)]);
  const hands = roundPanel(game, round);
  hands.id = "past-round";
  hands.querySelector("h2").textContent = `Round ${number}: hands`;
  hands.querySelector("p.muted").textContent = "Correct any hand; the change is kept in the round's history, with who made it and when.";
  const info = game.rounds[number - 1];
  if (!drawView(hash,
    el("section", { class: "panel", id: "table-header" },
      el("h1", { id: "game-title", text: `${game.name || "Game " + game.id} — round ${number}` }),
      el("p", { id: "round-info" }, el("strong", { text: `Round ${number}: ` }),
        `${info.contract || "any melds"} · ${info.cards_dealt} cards each`,
        game.finished ? " · the game is over" : ` · round ${game.current_round} is being played`),
      el("p", { class: "muted", id: "totals", text: `Totals: ${game.players.map((p, i) => `${p} ${game.totals[i]}`).join(" · ")}` }),
      changeControls(game)),
    hands, buysPanel(game, round), historyPanel(number, changes))) return;
}

// A round's history, oldest first: each change with who made it and when, and its undo.
function historyPanel(number, changes) {
  const items = changes.map((c) => el("li", { class: `change${c.undone_at ? " undone" : ""}${c.correction ? " correction" : ""}` },
    el("span", { class: "summary", text: c.summary }), " ",
    el("span", { class: "muted", text: `— ${c.by}, ${whenSaid(c.at)}` }),
    c.undone_at ? el("span", { class: "note", text: ` undone by ${c.undone_by}, ${whenSaid(c.undone_at)}` }) : null));
  return el("section", { class: "panel", id: "round-history", tabindex: "-1" },
    el("h2", { text: `Round ${number}: history` }),
    items.length ? el("ol", { class: "history" }, items)
      : el("p", { class: "muted", text: "Nothing recorded for this round (scored before histories were kept)." }));
}

// The score sheet's round cell: the round's number, a link to correct it once played,
// and the "edited" mark that shows its history under the sheet.
function sheetRoundCell(gameId, r) {
  const number = r.complete
    ? el("a", { class: "number", href: `#/games/${gameId}/rounds/${r.number}`, "aria-label": `Round ${r.number}: open to correct`, text: r.number })
    : el("span", { class: "number", text: r.number });
  const mark = r.edited
    ? el("button", { type: "button", class: "edited", "aria-label": `Round ${r.number} was edited: show its history`, text: "edited",
        onclick: async () => {
          const shown = document.getElementById("round-history");
          try {
            const panel = historyPanel(r.number, await api("GET", `/api/games/${gameId}/changes?round=${r.number}`));
            if (shown) shown.replaceWith(panel);
            else document.getElementById("sheet-panel").after(panel);
            panel.scrollIntoView({ block: "nearest" });
            panel.focus({ preventScroll: true });
          } catch (error) {
            toast(error.message);
          }
        } })
    : null;
  return [number, " ", el("span", { class: "contract", text: r.contract || "any melds" }), mark];
}

// The round in play's history on the table, folded: read each time it is opened.
function roundHistoryFold(game, number) {
  const body = el("div", { class: "history-body" });
  const fold = el("details", { class: "panel", id: "table-history" },
    el("summary", { class: "panel-title" }, el("h2", { text: `Round ${number}: history` })), body);
  fold.addEventListener("toggle", async () => {
    if (!fold.open) return;
    try {
      const panel = historyPanel(number, await api("GET", `/api/games/${game.id}/changes?round=${number}`));
      body.replaceChildren(...[...panel.childNodes].slice(1)); // its list, without the title
    } catch (error) {
      body.replaceChildren(el("p", { class: "error", text: error.message }));
    }
  });
  return fold;
}
