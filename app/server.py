"""Serve the site with uvicorn (the database is migrated by the app's start-up)."""

from __future__ import annotations

import uvicorn

from app.config import get_settings

WS_MAX_FRAME = 64 * 1024
"""Frames over 16 KB are refused with an error; frames over this close the connection."""


def main() -> None:
    settings = get_settings()
    print(f"Panic Party at http://{settings.host}:{settings.port}", flush=True)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        ws_max_size=WS_MAX_FRAME,
        ws_per_message_deflate=False,
        proxy_headers=True,
    )


if __name__ == "__main__":
    main()
