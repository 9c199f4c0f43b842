// This device's choices, kept in localStorage: four-colour suits (clubs green, diamonds
// blue), whether the live camera panel is open, and whose device it is (named in the
// history of the changes made from it). The colour theme follows the
// system's (prefers-color-scheme, in style.css).
"use strict";

const prefs = {
  read(name, fallback) {
    try {
      const value = localStorage.getItem(`shanghai.pref.${name}`);
      return value === null ? fallback : value === "yes";
    } catch (_error) {
      return fallback;
    }
  },

  write(name, on) {
    try {
      localStorage.setItem(`shanghai.pref.${name}`, on ? "yes" : "no");
    } catch (_error) {
      // not kept: this visit only
    }
  },

  fourColours() {
    return this.read("four-colours", false);
  },

  setFourColours(on) {
    this.write("four-colours", on);
    document.documentElement.classList.toggle("four-colours", on);
  },

  // Open unless chosen otherwise, but folded on a phone-sized screen: there the hands to
  // enter come first.
  liveOpen() {
    return this.read("live-open", !window.matchMedia("(max-width: 600px)").matches);
  },

  setLiveOpen(on) {
    this.write("live-open", on);
  },

  // Who uses this device (a player's name, "Gran's tablet"): sent with every change, so
  // a round's history says who made each correction. Empty: the server says "host".
  who() {
    try {
      return localStorage.getItem("shanghai.pref.who") || "";
    } catch (_error) {
      return "";
    }
  },

  setWho(name) {
    try {
      localStorage.setItem("shanghai.pref.who", name.trim());
    } catch (_error) {
      // not kept: this visit only
    }
  },

  // The `by` of a change: this device's name, or nothing (the server's default).
  by() {
    return this.who() || undefined;
  },
};

document.documentElement.classList.toggle("four-colours", prefs.fourColours());

window.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("four-colours");
  if (!box) return;
  box.checked = prefs.fourColours();
  box.addEventListener("change", () => prefs.setFourColours(box.checked));
  const who = document.getElementById("device-name");
  if (!who) return;
  who.value = prefs.who();
  who.addEventListener("change", () => prefs.setWho(who.value));
});
