"""Where the site finds each game's files: its page folder as an asset root, its rules pages as
templates, and the URLs the pages name (docs/decisions/0050, 0052).

- **Assets.** Each registered package's ``page/`` is an ``AssetRoot`` under ``/games/<id>/page``
  (``asset_roots``): versioned, compressed and cached like ``static/`` (app/web/assets.py), and
  its modules import the site's by absolute path (``/static/js/i18n.js``), which the versioning
  rewrites like any other.
- **Rules pages.** ``games/<id>/<name>`` is the file ``<name>`` of that game's ``rules/``
  (``GameTemplates``, a Jinja loader that asks the registry), so a rules page extends the site's
  ``rules/frame.html`` and imports its own partials as ``games/<id>/_part.html``.
- **URLs.** ``game_urls`` gives a page the versioned URLs of a game's module, style and picture.
"""

from __future__ import annotations

from collections.abc import Callable
from jinja2 import BaseLoader, ChoiceLoader, Environment, FileSystemLoader, TemplateNotFound
from starlette.requests import Request

from app.engine import all_packages, get_package
from app.engine.package import GamePackage
from app.web.assets import AssetRoot

from .urls import asset_url

TEMPLATE_PREFIX = "games/"


def asset_roots() -> list[AssetRoot]:
    """The page folder of every registered package that has one, each under its prefix."""
    return [AssetRoot(p.page_prefix, p.page_folder, f"game-{p.id}")
            for p in all_packages() if p.folder is not None and p.page_folder.is_dir()]


def game_urls(request: Request, game_id: str) -> dict[str, str]:
    """The versioned URLs of the game's page module (``module``), stylesheet (``style``) and
    lobby picture (``picture``); empty for a game with no page folder."""
    package = get_package(game_id)
    if package is None or package.folder is None:
        return {}
    prefix = package.page_prefix
    return {"module": asset_url(request, f"{prefix}/{package.module}"),
            "style": asset_url(request, f"{prefix}/{package.style}"),
            "picture": asset_url(request, f"{prefix}/{package.picture}")}


def rules_template(package: GamePackage, lang: str) -> tuple[str, str]:
    """The template of the game's rules page in ``lang`` and the language it is in: the page in
    that language, else the English one."""
    chosen = lang if (package.rules_folder / f"{lang}.html").is_file() else "en"
    return f"{TEMPLATE_PREFIX}{package.id}/{chosen}.html", chosen


class GameTemplates(BaseLoader):
    """``games/<id>/<name>``: the file ``<name>`` in the rules folder of the registered game
    ``<id>``; anything else is not found here."""

    def get_source(self, environment: Environment,
                   template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        loader = self._loader(template)
        if loader is None:
            raise TemplateNotFound(template)
        return loader.get_source(environment, template.split("/", 2)[2])

    def list_templates(self) -> list[str]:
        return sorted(f"{TEMPLATE_PREFIX}{p.id}/{name}" for p in all_packages()
                      if p.folder is not None and p.rules_folder.is_dir()
                      for name in FileSystemLoader(p.rules_folder).list_templates())

    @staticmethod
    def _loader(template: str) -> FileSystemLoader | None:
        parts = template.split("/", 2)
        if len(parts) != 3 or f"{parts[0]}/" != TEMPLATE_PREFIX:
            return None
        package = get_package(parts[1])
        if package is None or package.folder is None:
            return None
        return FileSystemLoader(package.rules_folder)


def template_loader(site: BaseLoader) -> ChoiceLoader:
    """The site's own templates first, then every game's rules pages."""
    return ChoiceLoader([site, GameTemplates()])
