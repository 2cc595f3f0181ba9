// The Loop Library's service worker: a loop's page, its player, its clips and pictures stay
// readable and playable without a network once they have been fetched (a learner on a train).
// Every request goes to the network first, and what it answers whole (200) is kept; when the
// network fails, what was kept answers. The API and the metrics are never kept.
"use strict";
var CACHE = "looplearn-pages-1";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("fetch", function (event) {
  var request = event.request, url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/api/") === 0 || url.pathname === "/metrics" || url.pathname === "/healthz") return;
  event.respondWith(fetch(request).then(function (response) {
    // A range (a player's) is not kept: the whole file is, when the page asks for it.
    if (response.status === 200 && !request.headers.has("range")) {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) { return cache.put(request, copy); });
    }
    return response;
  }, function (failure) {
    return caches.open(CACHE).then(function (cache) { return cache.match(request, { ignoreVary: true }); }).then(function (kept) {
      if (kept) return kept;
      throw failure;
    });
  }));
});
