// The page's service worker, served as /sw.js so that it covers the whole site.
// It keeps the page's own files (the "shell") so the page opens with no network, and
// never keeps an API answer: scores, scans and the table code always come from the
// server. Network first: a page that can reach the server always gets the newest files.
"use strict";

const SHELL_CACHE = "shanghai-shell-v2";
const SHELL = [
  "/",
  "/static/style.css",
  "/static/prefs.js",
  "/static/drafts.js",
  "/static/live.js",
  "/static/app.js",
  "/static/round-end.js",
  "/static/history.js",
  "/static/records.js",
  "/static/decks.js",
  "/static/offline.js",
  "/static/manifest.webmanifest",
  "/static/icon.svg",
  "/static/icon-192.png",
  "/static/icon-512.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n !== SHELL_CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

// The shell's cache key of a request, or null when it is not the shell's (the API, the
// live socket, scans' photos, the printable sheet, the docs: never kept).
function shellKey(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  if (request.mode === "navigate" && url.pathname === "/") return "/";
  return SHELL.includes(url.pathname) && url.pathname !== "/" ? url.pathname : null;
}

self.addEventListener("fetch", (event) => {
  const key = shellKey(event.request);
  if (key === null) return; // straight to the network, as without a worker
  event.respondWith((async () => {
    const cache = await caches.open(SHELL_CACHE);
    try {
      const response = await fetch(event.request);
      // only the real files: not the table-code form (401), not an error page
      if (response.ok && response.type === "basic") await cache.put(key, response.clone());
      return response;
    } catch (offline) {
      const kept = await cache.match(key);
      if (kept) return kept;
      throw offline;
    }
  })());
});
