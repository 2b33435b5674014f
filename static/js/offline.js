// The offline page (templates/offline.html), shown by the service worker in place of a page that
// could not be fetched: it loads that page again as soon as the site answers.
const FIRST_TRY_MS = 2000;
const LONGEST_WAIT_MS = 30000;
let wait = FIRST_TRY_MS;

async function tryAgain() {
  try {
    await fetch(location.href, { method: "HEAD", cache: "no-store" });
  } catch {
    wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    setTimeout(tryAgain, wait);
    return;
  }
  location.reload();
}

window.addEventListener("online", () => location.reload());
document.getElementById("offline-retry")?.addEventListener("click", () => location.reload());
setTimeout(tryAgain, wait);
