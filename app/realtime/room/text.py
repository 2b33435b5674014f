"""Player-supplied text (nicknames and chat) normalised at the door.

One function serves both (docs/protocol.md, "Nicknames and chat"): Unicode NFKC (full-width
letters become plain letters, compatibility forms fold), runs of white space become one space and
the ends are trimmed; then text with a control character (NUL included: PostgreSQL refuses it in
a text column), a zero-width or invisible format character, or a bidirectional override, embedding
or isolate is REFUSED with a clear reason (never silently stripped, so what a player sees is what
they typed); at least one visible character must remain; the length limit counts the normalised
text. Names are compared after ``casefold`` of the normalised form, so "BOB" and "bob" are one.

The one format character let through is the zero-width joiner inside an emoji sequence (between
two pictographs, as in a family or a rainbow flag): it joins pictures, it cannot hide a letter.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069")
_ZWJ = "\u200d"
_EMOJI_VARIATION = "\ufe0f"
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern)."""


class TextRefused(ValueError):
    """Text that cannot be a nickname or a chat line; the message says why."""


def _name(ch: str) -> str:
    return f"U+{ord(ch):04X}" + (f" {unicodedata.name(ch)}" if unicodedata.name(ch, "") else "")


def _emoji_joiner(text: str, i: int) -> bool:
    """A zero-width joiner between two pictographs (an emoji ZWJ sequence)."""
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    before_ok = before == _EMOJI_VARIATION or unicodedata.category(before) in ("So", "Sk")
    return before_ok and unicodedata.category(after) == "So"


def _visible(ch: str) -> bool:
    return unicodedata.category(ch)[0] not in "ZMC" and ch not in _INVISIBLE_LETTERS


def normalise_text(value: str, *, max_length: int, what: str = "text") -> str:
    """``value`` normalised, or ``TextRefused`` saying why it cannot be used."""
    text = unicodedata.normalize("NFKC", value)
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch in _BIDI_CONTROLS:
            raise TextRefused(f"{what} may not contain a bidirectional control ({_name(ch)})")
        if category in ("Cc", "Cs", "Zl", "Zp"):
            raise TextRefused(f"{what} may not contain a control character ({_name(ch)})")
        if category == "Cf" and not (ch == _ZWJ and _emoji_joiner(text, i)):
            raise TextRefused(f"{what} may not contain an invisible character ({_name(ch)})")
    text = " ".join(text.split())
    if not any(_visible(ch) for ch in text):
        raise TextRefused(f"{what} needs at least one visible character")
    if len(text) > max_length:
        raise TextRefused(f"{what} is limited to {max_length} characters")
    return text


def normaliser(max_length: int, what: str) -> Callable[[str], str]:
    """A validator (for pydantic's ``AfterValidator``) normalising one kind of text."""

    def validate(value: str) -> str:
        return normalise_text(value, max_length=max_length, what=what)

    return validate


def name_key(name: str) -> str:
    """What two nicknames are compared by: the normalised name without case."""
    return unicodedata.normalize("NFKC", name.casefold())
