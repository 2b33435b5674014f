// The pages' texts in the page's language: the same catalogs as the templates (app/i18n/*.json).
// The server chose the language (the header switch's cookie, else the browser's Accept-Language)
// and names its catalog in <meta name="i18n-catalog">; `lang` is that language. A page without
// that meta falls back to navigator.language. A missing key shows `fallback` (else the key).
const SUPPORTED = ["en", "de"];

function browserLanguage() {
  for (const tag of navigator.languages ?? [navigator.language ?? "en"]) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (SUPPORTED.includes(primary)) return primary;
  }
  return "en";
}

export const lang = SUPPORTED.includes(document.documentElement.lang)
  ? document.documentElement.lang : browserLanguage();

async function loadCatalog() {
  const meta = document.querySelector('meta[name="i18n-catalog"]');
  const url = meta?.content || `/i18n/${lang}.json`;
  try {
    const res = await fetch(url);
    return res.ok ? await res.json() : {};
  } catch {
    return {};
  }
}

const catalog = await loadCatalog();
const plurals = new Intl.PluralRules(lang);

/** The text of `key` with `{name}` filled from `params`; `{one, other}` entries pick by `params.n`. */
export function t(key, params = {}, fallback = key) {
  let value = catalog[key] ?? fallback;
  if (value && typeof value === "object") value = value[plurals.select(Number(params.n ?? 0))] ?? value.other;
  return String(value).replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** The catalog's raw entry for `key` (a text, or `{one, other}`), or undefined. */
export function wording(key) {
  return catalog[key];
}
