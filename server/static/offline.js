// Installable and usable without a network: the service worker (/sw.js) keeps the page's
// own files, so the page opens offline; the API is never cached, and entries not yet
// confirmed wait on this device (drafts.js). A line at the top says when the server
// cannot be reached.
"use strict";

if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // no worker (a private window, say): the page works online as before
    });
  });
}

window.addEventListener("offline", () => document.body.classList.add("offline"));
window.addEventListener("online", () => document.body.classList.remove("offline"));
window.addEventListener("DOMContentLoaded", () => {
  if (!navigator.onLine) document.body.classList.add("offline");
});
