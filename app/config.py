"""Settings from the environment, in one class (pydantic-settings)."""

from __future__ import annotations

import re
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Every setting the server reads. Each can be set by the environment variable of its name."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    var_dir: Path = Field(PROJECT_ROOT / "var", description="Where local data lives (SQLite, key).")
    database_url: str = Field("", description="SQLAlchemy URL; default: SQLite under var/.")
    redis_url: str = Field("", description="Optional Redis URL: joins several server processes.")
    redis_prefix: str = Field("pp", description="Prefix of this site's Redis keys and channels.")
    secret_key: str = Field("", description="Signs seat tokens; generated and kept in var/ if unset.")
    host: str = "127.0.0.1"
    port: int = 8000
    # --- who the links point at (README, "Playing together") ---
    lan: bool = Field(
        False, description="Serve the local network: listen on 0.0.0.0 and put this machine's "
        "LAN address in links and QR codes (``python3 -m app serve --lan``)."
    )
    lan_address: str = Field("", description="The LAN address for links; found at start if unset.")
    public_url: str = Field(
        "", description="The site's public address behind a proxy (https://party.example.org): "
        "links and QR codes carry it."
    )
    forwarded_allow_ips: str = Field(
        "127.0.0.1", description="Proxies whose X-Forwarded-For/-Proto headers are trusted: "
        "comma-separated addresses or networks, or * for any (only behind a proxy that owns "
        "every route in)."
    )
    allowed_hosts: str = Field(
        "", description="Host names the site answers besides its own (localhost, PUBLIC_URL's "
        "host, HOST, the LAN address and machine name when serving the network): "
        "comma-separated, *.example.org for every subdomain, * for any (app/hosts.py)."
    )
    default_language: str = Field("en", description="Pages' language when the browser names none.")

    @field_validator("public_url")
    @classmethod
    def _public_url_is_absolute(cls, value: str) -> str:
        """``PUBLIC_URL`` must be a whole address (scheme and host), or links would break."""
        value = value.strip()
        if value and not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", value):
            raise ValueError(f"PUBLIC_URL must look like https://party.example.org, not {value!r}")
        return value.rstrip("/")
    log_level: str = "info"
    migrate_on_start: bool = Field(True, description="Apply Alembic migrations at start-up.")
    database_timeout_seconds: float = Field(
        5.0, description="Longest wait for the database: connect, statement (PostgreSQL) and busy "
        "(SQLite) timeouts; a read that takes longer answers 503."
    )
    outbox_retry_max_seconds: float = Field(
        30.0, description="Longest pause between retries of a finished match waiting in the "
        "outbox (var/outbox/) for the database."
    )
    room_idle_seconds: float = Field(600.0, description="An empty room closes after this long.")
    room_unjoined_seconds: float = Field(
        60.0, description="A room that no page has joined closes this long after it was made "
        "(docs/decisions/0044)."
    )
    max_rooms: int = Field(5000, description="Rooms open at once, at most.")
    ws_messages_per_second: int = Field(40, description="Client frames accepted per second.")
    ping_interval_seconds: float = Field(
        1.0, description="How often the server pings every page: its heartbeat (a page that hears "
        "nothing for 2.5 intervals says it is offline) and its round-trip measure."
    )
    presence_timeout_seconds: float = Field(
        3.0, description="A connection that answered the server's pings and then answers none for "
        "this long (at least two ping intervals) is closed: its member shows as away at once "
        "(docs/protocol.md, \"Presence\"). 0: never."
    )
    gc_young_seconds: float = Field(
        0.03, description="Collect young objects this often (0: CPython's automatic collector "
        "instead; see app/collector.py)."
    )
    gc_full_seconds: float = Field(
        0.0, description="0: what survives a young pass is frozen at once and no pass walks it "
        "again but a thaw (decision 0035). Above 0: the older schedule, which collects what "
        "became long-lived since the last such pass this often, then freezes the survivors "
        "(app/collector.py)."
    )
    gc_thaw_seconds: float = Field(
        21600.0, description="Ask a forked child this often whether thawing and collecting "
        "every object (the one long pause, a safety net for cycles among frozen objects) would "
        "free enough to be worth it; if so, run it once the heap is small again (at the latest "
        "after four times this; 0: never; app/collector.py)."
    )

    # --- Realtime limits (docs/protocol.md, "Limits") ---------------------------------------
    join_deadline_seconds: float = Field(
        5.0, description="A WebSocket that has not sent 'join' within this long is closed (4002)."
    )
    left_grace_seconds: float = Field(
        20.0, description="A member who left a waiting room keeps their place this long."
    )
    bot_think_scale: float = Field(
        1.0, ge=0, description="Computer players' thinking times are multiplied by this (1: as "
        "the policies draw them; tests use less)."
    )
    max_watchers_per_room: int = Field(8, description="Table views watching one room, at most.")
    max_sockets_per_address: int = Field(
        30, description="Open WebSockets from one client address, at most (4004 beyond)."
    )
    room_frames_per_second: int = Field(
        400, description="Client frames one room accepts per second, from all its clients."
    )
    room_probes_per_minute: int = Field(
        60, description="Unknown room codes and failed joins one address may try per minute "
        "(HTTP 429 / close 4429 beyond)."
    )
    http_header_deadline_seconds: float = Field(
        20.0, gt=0, description="A request's headers must be complete within this long of the "
        "connection's accept or of the previous response's end, and its body within this long "
        "again of its headers' end (408 and closed beyond; app/http_protocol.py)."
    )
    max_http_connections_per_address: int = Field(
        30, ge=1, description="Open HTTP connections from one peer address, at most (trusted "
        "proxies are not capped; a WebSocket counts under max_sockets_per_address instead)."
    )

    # --- Operations (docs/architecture.md, "Operations") ------------------------------------
    log_format: Literal["text", "json"] = Field(
        "text", description="Log lines as plain text, or one JSON object per line (json)."
    )
    metrics_token: str = Field(
        "", description="Bearer token /metrics asks for; unset: /metrics answers only clients "
        "on the loopback or a private network."
    )

    # --- Durable rooms (docs/architecture.md, "Durable rooms") -------------------------------
    durable_rooms: bool = Field(
        True, description="Record every room change and move (group-committed) so that a "
        "restarted server restores its open rooms; false keeps rooms in memory only."
    )
    journal_hold_seconds: float = Field(
        3.0, description="How long a room's frames wait for a database that does not answer; "
        "then the rooms play on and their moves are written once it is back."
    )

    # --- Several processes (docs/architecture.md, "Several processes") ---------------------
    lease_seconds: float = Field(
        6.0, gt=0, description="With REDIS_URL: a room's lease in Redis lives this long unless "
        "its process renews it (every third of it); after a crash another process takes the "
        "room over within about this long."
    )

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        self.var_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.var_dir / 'panic-party.sqlite3'}"

    def resolved_secret_key(self) -> str:
        """The configured key, else one generated once and kept in ``var/secret_key``."""
        if self.secret_key:
            return self.secret_key
        self.var_dir.mkdir(parents=True, exist_ok=True)
        path = self.var_dir / "secret_key"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(48))
            path.chmod(0o600)
        self.secret_key = path.read_text().strip()
        return self.secret_key


@lru_cache
def get_settings() -> Settings:
    return Settings()
