"""The pages in English and German: one catalog per language, chosen from the browser or the
header's switch (app/i18n)."""

from __future__ import annotations


import pytest

from app.i18n import LANGUAGES, catalog, flat_keys, negotiate, translate
from app.i18n.events import PLACEHOLDER


def _params(value: object) -> set[str]:
    """Every placeholder, with its form: ``{n}``, ``{seat:victim}``, ``{term:ns:card}``."""
    texts = value.values() if isinstance(value, dict) else [value]
    return {m.group(0) for text in texts for m in PLACEHOLDER.finditer(str(text))}


def test_every_catalog_has_exactly_the_same_keys_and_parameters():
    english = catalog("en")
    for lang in LANGUAGES:
        assert flat_keys(catalog(lang)) == flat_keys(english), lang
        for key, value in catalog(lang).items():
            assert value, (lang, key)
            assert _params(value) == _params(english[key]), (lang, key)


def test_texts_take_parameters_and_plurals():
    assert translate("en", "match.score", n=1) == "1 point"
    assert translate("en", "match.score", n=3) == "3 points"
    assert translate("de", "match.moves", n=1) == "1 Zug"
    assert translate("de", "match.moves", n=0) == "0 Züge"
    assert translate("de", "missing_room.title", code="ABCD") == "Es gibt keinen Raum ABCD"
    assert translate("de", "no.such.key") == "no.such.key"
    assert translate("de", "no.such.key", default="Fallback") == "Fallback"


@pytest.mark.parametrize(("cookie", "header", "expected"), [
    (None, "de-DE,de;q=0.9,en;q=0.8", "de"),
    (None, "fr-FR,fr;q=0.9,de;q=0.5,en;q=0.4", "de"),
    (None, "en-GB,de;q=0.9", "en"),
    (None, "fr", "en"),
    (None, None, "en"),
    (None, "de;q=0.2,en;q=0.9", "en"),
    (None, "de;q=bogus,en", "en"),
    ("de", "en-US", "de"),
    ("xx", "de", "de"),
])
def test_the_language_comes_from_the_switch_then_the_browser(cookie, header, expected):
    assert negotiate(cookie, header) == expected


def test_a_page_renders_in_german_for_a_german_browser(server):
    with server.http() as http:
        page = http.get("/leaderboard", headers={"Accept-Language": "de-DE,de;q=0.9"}).text
        assert '<html lang="de">' in page
        assert "Bestenliste" in page and "Spielen" in page and "Partien" in page
        assert "Leaderboard</h1>" not in page
        lobby = http.get("/", headers={"Accept-Language": "de"}).text
        assert "Mit einem Code beitreten" in lobby and "Raum eröffnen" in lobby
        assert '<meta name="i18n-catalog" content="/i18n/de.json?v=' in lobby
        english = http.get("/", headers={"Accept-Language": "en-US"})
        assert '<html lang="en">' in english.text and "Join with a code" in english.text
        assert "Accept-Language" in english.headers["vary"]


def test_the_switch_remembers_the_language_and_stays_on_the_site(server):
    with server.http() as http:
        r = http.get("/lang/de", params={"next": "/matches?x=1"}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/matches?x=1"
        assert "lang=de" in r.headers["set-cookie"] and "max-age" in r.headers["set-cookie"].lower()
        page = http.get("/matches", headers={"Accept-Language": "en"}).text
        assert '<html lang="de">' in page and "Letzte Partien" in page
        assert 'href="/lang/en?next=/matches"' in page  # the switch offers the other language
        for evil in ("//evil.example/x", "https://evil.example/", "/\\evil.example"):
            r = http.get("/lang/en", params={"next": evil}, follow_redirects=False)
            assert r.headers["location"] == "/", evil
        assert http.get("/lang/xx").status_code == 404


def test_the_catalogs_are_served_to_the_pages_scripts(server):
    with server.http() as http:
        for lang in LANGUAGES:
            r = http.get(f"/i18n/{lang}.json")
            assert r.status_code == 200 and r.json() == catalog(lang)
        assert http.get("/i18n/xx.json").status_code == 404


def test_the_game_scripts_show_no_capitalised_english_word_of_their_own():
    """A title the scripts write in capitals comes from the catalogs (Panic Lab's "LOOKING FOR"
    while a round's path plays was English on German phones, issue 23): no quoted word of
    capitals in any game's page modules (HTTP verbs, in the site's own scripts, are not text)."""
    import re

    from app.engine import all_packages

    scripts = [path for p in all_packages() if p.folder is not None
               for path in sorted(p.page_folder.rglob("*.js"))]
    assert scripts
    found = [f"{path.name}: {match.group(0)}" for path in scripts
             for match in re.finditer(r"[\"'`][A-Z][A-Z!?. ]{2,}[\"'`]", path.read_text())]
    assert found == []
