// Every page registers the site's service worker (/sw.js, templates/sw.js): the site can then be
// installed as an app, keeps its assets, and shows its own page when the network is gone
// (docs/decisions/0047). Browsers offer service workers on https and on localhost only; on a
// plain-http LAN address the pages work as before, without one.
function register() {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}

if ("serviceWorker" in navigator) {
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
