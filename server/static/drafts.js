// Entries not confirmed yet, kept on this device (localStorage) per game, round and what
// (a seat's hand, a seat's correction, the whole-table photo) until confirmed: a redraw,
// another device's update or a reload loses none of them. Without storage (a private
// window that refuses it) they live in memory only, as before.
"use strict";

const drafts = {
  prefix: "shanghai.draft.",

  key(gameId, round, what) {
    return `${this.prefix}${gameId}.${round}.${what}`;
  },

  load(key) {
    try {
      const text = localStorage.getItem(key);
      return text ? JSON.parse(text) : null;
    } catch (_error) {
      return null;
    }
  },

  save(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch (_error) {
      // storage full or refused: the entry stays in the page only
    }
  },

  drop(key) {
    try {
      localStorage.removeItem(key);
    } catch (_error) {
      // nothing stored
    }
  },

  // The game's drafts of rounds before `round`: all confirmed by now, so dropped; but a
  // correction being made of a round already played (`fixN`) is kept with `keepFixes`
  // (past rounds can be corrected at any time).
  dropBefore(gameId, round, keepFixes = false) {
    const start = `${this.prefix}${gameId}.`;
    try {
      for (let i = localStorage.length - 1; i >= 0; i--) {
        const key = localStorage.key(i);
        if (keepFixes && key && /\.fix\d+$/.test(key)) continue;
        if (key && key.startsWith(start) && Number(key.slice(start.length).split(".")[0]) < round) {
          localStorage.removeItem(key);
        }
      }
    } catch (_error) {
      // nothing stored
    }
  },
};
