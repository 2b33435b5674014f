"""The versioned assets (app/web/assets.py, docs/decisions/0046), built from folders made here:
content-hashed names, the imports and ``url()``s inside rewritten to them, across roots, the
compressed forms, and the whole of the site's own static/ loading by versioned URLs only."""

from __future__ import annotations

import brotli
import gzip
import posixpath
import re
from pathlib import Path

from app.api.game_files import asset_roots
from app.api.installable import site_worker
from app.api.site import site_templates
from app.main import SITE_ASSETS
from app.web.assets import AssetRegistry, AssetRoot

VERSIONED = r"\.[0-9a-f]{10}\."


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _text(registry: AssetRegistry, source: str) -> str:
    url = registry.url(source)
    assert url is not None, source
    asset = registry.get(url)
    assert asset is not None
    return asset.body.decode()


SITE = {
    "js/room.js": 'import {\n  send,\n  join as enter,\n} from "./protocol.js";\n'
                  'import { t } from "./i18n.js";\nexport { t } from "./i18n.js";\n'
                  'import "./side_effect.js";\nimport { html } from "lit";\n'
                  'const game = () => import("./games/panika.js");\n'
                  "const other = (id) => import(`./games/${id}.js`);\n",
    "js/protocol.js": "export const send = 1; export const join = 2;\n",
    "js/i18n.js": "export const t = (k) => k;\n",
    "js/side_effect.js": "globalThis.x = 1;\n",
    "js/games/panika.js": "import { t } from '../i18n.js';\nexport const layout = 'fill';\n",
    "js/unrelated.js": "export const u = 1;\n",
}


def test_a_module_and_every_module_it_imports_load_by_versioned_urls(tmp_path):
    _write(tmp_path, SITE)
    registry = AssetRegistry([AssetRoot("/static", tmp_path, "static")])
    room = _text(registry, "/static/js/room.js")
    for source in ("protocol", "i18n", "side_effect", "games/panika"):
        url = registry.url(f"/static/js/{source}.js")
        assert url and re.fullmatch(rf"/static/js/{source}{VERSIONED}js", url)
        # Each reference keeps its form (relative, the same folder), only the name changes.
        assert f'"./{url.removeprefix("/static/js/")}"' in room
    assert 'from "./protocol.js"' not in room and 'import "./side_effect.js"' not in room
    assert room.count(registry.url("/static/js/i18n.js").rsplit("/", 1)[1]) == 2
    # A bare module name and a template literal name no file: left as they are.
    assert 'from "lit"' in room and "import(`./games/${id}.js`)" in room
    panika = _text(registry, "/static/js/games/panika.js")
    assert f"'../{registry.url('/static/js/i18n.js').rsplit('/', 1)[1]}'" in panika


def test_a_change_below_a_module_gives_it_and_its_importers_new_urls_and_no_one_else(tmp_path):
    _write(tmp_path, SITE)
    before = AssetRegistry([AssetRoot("/static", tmp_path, "static")])
    (tmp_path / "js" / "i18n.js").write_text("export const t = (k) => k.toUpperCase();\n")
    after = AssetRegistry([AssetRoot("/static", tmp_path, "static")])
    changed = {name for name in SITE
               if before.url(f"/static/{name}") != after.url(f"/static/{name}")}
    assert changed == {"js/i18n.js", "js/room.js", "js/games/panika.js"}
    assert before.version != after.version


def test_modules_that_import_each_other_are_versioned_too(tmp_path):
    _write(tmp_path, {"a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
                      "b.js": 'import { a } from "./a.js";\nexport const b = 2;\n'})
    registry = AssetRegistry([AssetRoot("/s", tmp_path, "s")])
    a, b = registry.url("/s/a.js"), registry.url("/s/b.js")
    assert a and b and b.removeprefix("/s/") in _text(registry, "/s/a.js")
    assert a.removeprefix("/s/") in _text(registry, "/s/b.js")


def test_a_stylesheet_names_its_pictures_and_imports_by_versioned_urls(tmp_path):
    _write(tmp_path, {
        "css/site.css": '@import "./base.css";\n.a { background: url(../img/a.svg); }\n'
                        ".b { background: url('/static/img/b.svg#frag'); }\n"
                        '.c { background: url("data:image/png;base64,AAAA"); }\n'
                        ".d { background: url(img/missing.svg); }\n",
        "css/base.css": "body { margin: 0; }\n",
        "img/a.svg": "<svg/>", "img/b.svg": "<svg></svg>",
    })
    registry = AssetRegistry([AssetRoot("/static", tmp_path, "static")])
    css = _text(registry, "/static/css/site.css")
    a, b = registry.url("/static/img/a.svg"), registry.url("/static/img/b.svg")
    base = registry.url("/static/css/base.css")
    assert a and b and base
    assert f'@import "./{base.rsplit("/", 1)[1]}"' in css
    assert f"url(../img/{a.rsplit('/', 1)[1]})" in css
    assert f"url('{b}#frag')" in css
    assert 'url("data:image/png;base64,AAAA")' in css and "url(img/missing.svg)" in css


def test_a_second_root_under_its_own_prefix_shares_the_sites_modules(tmp_path):
    """A game's own folder mounted under its own prefix: its module imports the site's
    modules across roots, by an absolute or a relative URL, and gets the very URLs the site's
    pages load (one module instance each)."""
    _write(tmp_path / "static", SITE)
    _write(tmp_path / "game", {
        "panika.js": 'import { t } from "/static/js/i18n.js";\n'
                     'import { send } from "../../static/js/protocol.js";\n'
                     'import { art } from "./art.js";\n',
        "art.js": "export const art = 1;\n", "panika.css": ".x { background: url(card.svg); }",
        "card.svg": "<svg/>",
    })
    registry = AssetRegistry([AssetRoot("/static", tmp_path / "static", "static"),
                              AssetRoot("/games/panika", tmp_path / "game", "game-panika")])
    module = _text(registry, "/games/panika/panika.js")
    assert f'from "{registry.url("/static/js/i18n.js")}"' in module
    protocol = registry.url("/static/js/protocol.js")
    assert protocol and f'from "../../static/js/{protocol.rsplit("/", 1)[1]}"' in module
    art = registry.url("/games/panika/art.js")
    assert art and art.startswith("/games/panika/art.") and art.rsplit("/", 1)[1] in module
    card = registry.url("/games/panika/card.svg")
    assert card and card.rsplit("/", 1)[1] in _text(registry, "/games/panika/panika.css")


def test_assets_are_kept_in_memory_with_their_gzip_and_brotli_forms(tmp_path):
    big = "body { color: red; }\n" * 200
    _write(tmp_path, {"big.css": big, "small.css": "a{}", "pic.png": "x" * 4000})
    registry = AssetRegistry([AssetRoot("/s", tmp_path, "s")])
    (tmp_path / "big.css").write_text("changed on disk after the start")
    asset = registry.get(registry.url("/s/big.css") or "")
    assert asset is not None and asset.body.decode() == big  # built once, at start
    assert asset.gzip and gzip.decompress(asset.gzip).decode() == big
    assert asset.brotli and brotli.decompress(asset.brotli).decode() == big
    assert len(asset.brotli) < len(asset.gzip) < len(big) // 10
    small = registry.get(registry.url("/s/small.css") or "")
    picture = registry.get(registry.url("/s/pic.png") or "")
    assert small and picture and small.gzip is small.brotli is picture.gzip is None
    assert asset.media_type == "text/css" and picture.media_type == "image/png"


def test_an_old_versioned_url_stands_for_todays_file():
    registry = AssetRegistry(SITE_ASSETS)
    current = registry.url("/static/js/room.js")
    assert current and registry.current("/static/js/room.0123456789.js") \
        == registry.get(current)
    assert registry.current("/static/js/nothing.0123456789.js") is None


def test_every_module_of_the_site_imports_the_sites_modules_by_versioned_url():
    """static/js and every game's page folder as served: no import of a module of the site is
    left unversioned (a module loaded by its plain URL would be a second copy of it, with its
    own state), and every versioned URL named exists."""
    registry = AssetRegistry([*SITE_ASSETS, *asset_roots()])
    named = 0
    for url in registry.urls():
        if not url.endswith(".js"):
            continue
        text = registry.get(url).body.decode()  # type: ignore[union-attr]
        for ref in re.findall(r"""(?:from|import|import\()\s*["']([./][^"']*)["']""", text):
            named += 1
            assert re.search(rf"{VERSIONED}js$", ref), f"{url} imports {ref}"
            target = posixpath.join(posixpath.dirname(url), ref)
            assert registry.get(posixpath.normpath(target)) is not None, (url, ref)
    assert named >= 25  # every import of static/js (28 when this was written)


def test_the_service_worker_script_changes_when_the_site_does(tmp_path):
    templates = site_templates()
    _write(tmp_path, {"extra.js": "export const a = 1;\n"})
    site = AssetRegistry(SITE_ASSETS)
    worker = site_worker(templates, site)
    assert worker == site_worker(templates, AssetRegistry(SITE_ASSETS))  # same build, same worker
    changed = site_worker(templates, AssetRegistry([*SITE_ASSETS, AssetRoot("/x", tmp_path, "x")]))
    assert changed.version != worker.version
    assert '"panic-party-"' in worker.script.decode() and worker.version in worker.script.decode()
