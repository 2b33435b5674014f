"""Seat tokens: signed by the server, kept by the browser, they bring a player back to a seat."""

from __future__ import annotations

from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeSerializer


@dataclass(frozen=True)
class SeatClaim:
    room: str
    member: int
    nonce: str


class SeatTokens:
    """Signs and checks seat tokens with the server's secret key."""

    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeSerializer(secret_key, salt="panic-party-seat")

    def issue(self, claim: SeatClaim) -> str:
        return self._serializer.dumps({"r": claim.room, "m": claim.member, "n": claim.nonce})

    def read(self, token: str) -> SeatClaim | None:
        """The claim in a token, or ``None`` when the signature or the shape is wrong."""
        try:
            data = self._serializer.loads(token)
        except BadSignature:
            return None
        if not isinstance(data, dict):
            return None
        room, member, nonce = data.get("r"), data.get("m"), data.get("n")
        if not isinstance(room, str) or not isinstance(member, int) or not isinstance(nonce, str):
            return None
        return SeatClaim(room, member, nonce)
