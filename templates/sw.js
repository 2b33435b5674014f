// Panic Party's service worker, served at /sw.js (app/api/installable.py renders this once at
// start; docs/decisions/0047). It keeps the site's shell and the versioned assets the pages use,
// and shows the site's own offline page when a page cannot be fetched. Pages themselves, the API,
// the sockets, rooms and matches always come from the network and are never kept.
const VERSION = {{ version | tojson }};
const PREFIX = "panic-party-";
const CACHE = PREFIX + VERSION;
const SHELL = {{ shell | tojson }};
const ASSETS = new Set({{ assets | tojson }});
const OFFLINE = {{ offline | tojson }};
const LANGUAGE = "/offline/language"; // the language of the last page served, kept in CACHE

// A new version installs beside the old one, then takes over every open page at once: the pages
// load their assets by versioned URLs, so an old page keeps working with what it already has.
self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([...SHELL, ...Object.values(OFFLINE)]);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (ASSETS.has(url.pathname + url.search)) {
    event.respondWith(asset(request));
  }
});

let language = null;

/** A page from the network; without one, the offline page in the last page's language. */
async function page(event) {
  try {
    const response = await fetch(event.request);
    const lang = response.headers.get("Content-Language");
    if (lang in OFFLINE && lang !== language) {
      language = lang;
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(LANGUAGE, new Response(lang))));
    }
    return response;
  } catch (error) {
    const cache = await caches.open(CACHE);
    if (language === null) {
      const kept = await cache.match(LANGUAGE);
      language = kept ? await kept.text() : browserLanguage();
    }
    return (await cache.match(OFFLINE[language] ?? Object.values(OFFLINE)[0])) ?? Response.error();
  }
}

function browserLanguage() {
  for (const tag of self.navigator.languages ?? []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (primary in OFFLINE) return primary;
  }
  return Object.keys(OFFLINE)[0];
}

/** A versioned asset: its bytes never change, so the kept copy is used when there is one. */
async function asset(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
