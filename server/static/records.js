// The finished games with their winners, each player's statistics, and every game
// exported (JSON to import back, CSV for a spreadsheet) and imported back (#/history).
"use strict";

async function showRecords() {
  const hash = location.hash || "#/";
  const [games, players] = await Promise.all([api("GET", "/api/history/games"), api("GET", "/api/history/players")]);
  const day = (at) => new Date(at).toLocaleDateString([], { dateStyle: "medium" });
  const finished = games.length
    ? el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Finished games, scrolls sideways" },
        el("table", { class: "records", id: "finished-games" },
          el("thead", {}, el("tr", {}, ["Game, players and totals", "Winner"].map((h) => el("th", { scope: "col", text: h })))),
          el("tbody", {}, games.map((g) => el("tr", {},
            el("td", {}, el("a", { href: `#/games/${g.id}/sheet`, text: g.name || `Game ${g.id}` }),
              el("div", { class: "muted", text: `${g.variant_title} · ${day(g.created_at)} · ${plural(g.rounds, "round")}` }),
              el("div", { class: "totals", text: g.players.map((p, i) => `${p} ${g.totals[i]}`).join(" · ") })),
            el("td", { class: "winner", text: g.winners.join(", ") }))))))
    : el("p", { class: "muted", text: "No finished games yet." });
  const stats = players.length
    ? el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Player statistics, scrolls sideways" },
        el("table", { class: "records", id: "player-stats" },
          el("thead", {}, el("tr", {},
            el("th", { scope: "col", text: "Player" }),
            [["Games", "games finished"], ["Wins", "wins"], ["Avg.", "average points per round"], ["Best", "best (lowest) round"]]
              .map(([h, said]) => el("th", { scope: "col", class: "num" }, el("abbr", { title: said, text: h }))))),
          el("tbody", {}, players.map((p) => el("tr", {},
            el("th", { scope: "row", text: p.player }),
            el("td", { class: "num", text: p.games }),
            el("td", { class: "num", text: p.wins }),
            el("td", { class: "num", text: p.average_round.toFixed(1) }),
            el("td", { class: "num", text: p.best_round }))))))
    : el("p", { class: "muted", text: "Statistics start with the first finished game." });
  if (!drawView(hash,
    el("section", { class: "panel", id: "finished-panel" }, el("h1", { text: "Finished games" }), finished),
    el("section", { class: "panel", id: "stats-panel" }, el("h2", { text: "Players" }),
      el("p", { class: "muted", text: "Over the finished games. Avg. (average) and best: points in one round, the points left in hand (low is good)." }), stats),
    transferPanel())) return;
}

// Export every game, and import a file exported here or on another table's server.
function transferPanel() {
  const file = el("input", { type: "file", id: "import-file", accept: ".json,application/json" });
  const message = el("p", { class: "error", id: "import-error", role: "alert" });
  const done = el("p", { class: "ok", id: "import-done", role: "status" });
  const importButton = el("button", { type: "button", id: "import-button", text: "Import the games", onclick: async () => {
    message.textContent = done.textContent = "";
    if (!file.files.length) {
      message.textContent = "Choose a .json file exported from this page first.";
      file.focus();
      return;
    }
    const form = new FormData();
    form.append("file", file.files[0]);
    importButton.disabled = true;
    try {
      const answer = await api("POST", "/api/history/import", form);
      const said = `Imported ${plural(answer.imported.length, "game")}`
        + (answer.skipped ? `; ${answer.skipped} already here, left as they were.` : ".");
      await showRecords(); // the lists with the games imported, then what was done
      document.getElementById("import-done").textContent = said;
    } catch (error) {
      message.textContent = error.message;
    } finally {
      importButton.disabled = false;
    }
  } });
  return el("section", { class: "panel", id: "transfer-panel" },
    el("h2", { text: "Export and import" }),
    el("p", { class: "muted", text: "Every game with its rules, hands and buys (photos and round histories stay on this server)." }),
    el("div", { class: "row" },
      el("a", { class: "button secondary", id: "export-json", href: "/api/history/export.json", download: "", text: "Export all games (JSON)" }),
      el("a", { class: "button secondary", id: "export-csv", href: "/api/history/export.csv", download: "", text: "Export as CSV" })),
    el("label", { for: "import-file", text: "Import games from an exported JSON file" }), file,
    el("div", { class: "row" }, importButton), message, done);
}
