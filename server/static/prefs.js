// This device's display choices, kept in localStorage: four-colour suits (clubs green,
// diamonds blue) and whether the live camera panel is open. The colour theme follows the
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
};

document.documentElement.classList.toggle("four-colours", prefs.fourColours());

window.addEventListener("DOMContentLoaded", () => {
  const box = document.getElementById("four-colours");
  if (!box) return;
  box.checked = prefs.fourColours();
  box.addEventListener("change", () => prefs.setFourColours(box.checked));
});
