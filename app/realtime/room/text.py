"""Player-supplied text (nicknames and chat) normalised at the door, and what nicknames are
compared by.

One function serves both (docs/protocol.md, "Nicknames and chat"): Unicode NFKC (full-width
letters become plain letters, compatibility forms fold), runs of white space become one space and
the ends are trimmed; then text holding any character that draws nothing is REFUSED with a clear
reason, wherever it stands in the text (never silently stripped, so what a player sees is what
they typed). Which characters draw nothing is read from Unicode's properties, not a hand list:

- a control character (NUL included: PostgreSQL refuses it in a text column), a line or
  paragraph separator, or a bidirectional override, embedding or isolate;
- a format character (category Cf) or a Default_Ignorable_Code_Point (the zero-width spaces and
  joiners, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the combining grapheme joiner
  U+034F, the Khmer inherent vowels U+17B4 and U+17B5, the variation selectors, the tag
  characters...) or a noncharacter;
- the few graphic characters whose glyph Unicode defines as blank (``BLANK_GLYPHS``: the blank
  Braille pattern U+2800 among them), which no property marks.

A code point of private use, or not assigned yet (outside the ranges reserved for more
default-ignorable ones), draws the renderer's box: it is let through, but is not counted as
visible. Two default-ignorable characters keep their place inside emoji, where they join or choose
pictures and cannot hide a letter: the zero-width joiner between two pictographs (a family, a
rainbow flag) and an emoji or text variation selector (U+FE0E, U+FE0F) right after a symbol,
digit or punctuation mark (the red heart, a keycap). At least one visible character must remain;
the length limit counts the normalised text. The same rules hold for chat lines: a chat line of
fillers is as blank as a nickname of them.

Nicknames are compared by ``name_keys``: the UTS #39 confusable skeleton (Unicode's
confusables.txt, applied by ICU's spoof checker), without case, so that "Host" with a Cyrillic
"о", "HOST" and "Ｈost" are all one name in a room (docs/decisions/0042).

Every Unicode property here (NFKC, the categories, the default-ignorable set, the skeleton)
comes from ICU (PyICU), so all are of one Unicode version, whatever the interpreter's
``unicodedata`` knows.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import icu


def _chars(pattern: str) -> frozenset[str]:
    """The characters of an ICU set pattern (Unicode properties), as a set of one-character
    strings."""
    return frozenset(icu.UnicodeSet(pattern))


def _classes(pattern: str) -> icu.UnicodeSet:
    """A large ICU set of characters (general categories), asked one character at a time."""
    chars = icu.UnicodeSet(pattern)
    chars.freeze()
    return chars


_BIDI_CONTROLS = _chars("[:Bidi_Control:]")
"""U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069."""
_CONTROLS = _chars("[[:Cc:][:Cs:][:Zl:][:Zp:]]")
IGNORABLE = _chars("[[:Default_Ignorable_Code_Point:][:Noncharacter_Code_Point:][:Cf:]]")
"""Characters Unicode says a renderer shows as nothing (Default_Ignorable_Code_Point, which
includes the code points reserved for more of them), the noncharacters and the other format
characters (category Cf)."""
BLANK_GLYPHS = frozenset("\u2800\U0001d159\U00016fe4")
"""Graphic characters that draw nothing yet are not default-ignorable: BRAILLE PATTERN BLANK,
MUSICAL SYMBOL NULL NOTEHEAD, KHITAN SMALL SCRIPT FILLER."""
_INK = _classes("[[:L:][:N:][:P:][:S:]]")
"""Letters, digits, punctuation and symbols: what draws a glyph of its own."""
_SELECTABLE = _classes("[[:N:][:P:][:S:]]")
"""What a presentation selector may follow: a symbol, a digit (a keycap), a punctuation mark."""
_PICTURE = _classes("[[:So:][:Sk:]]")
_SYMBOL = _classes("[:So:]")
_ZWJ = "\u200d"
_EMOJI_VARIATION = "\ufe0f"
_PRESENTATION_SELECTORS = frozenset("\ufe0e\ufe0f")
"""The text and emoji presentation selectors: they choose how a symbol draws."""
_NFKC = icu.Normalizer2.getNFKCInstance()
_SPOOF = icu.SpoofChecker()


class TextRefused(ValueError):
    """Text that cannot be a nickname or a chat line; the message says why."""


def _name(ch: str) -> str:
    name = str(icu.Char.charName(ch))
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def _emoji_joiner(text: str, i: int) -> bool:
    """A zero-width joiner between two pictographs (an emoji ZWJ sequence)."""
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    return bool((before == _EMOJI_VARIATION or _PICTURE.contains(before))
                and _SYMBOL.contains(after))


def _presentation_selector(text: str, i: int) -> bool:
    """U+FE0E or U+FE0F right after a symbol, digit or punctuation mark (an emoji, a keycap)."""
    return (text[i] in _PRESENTATION_SELECTORS and i > 0 and text[i - 1] not in IGNORABLE
            and bool(_SELECTABLE.contains(text[i - 1])))


def _refusal(text: str, what: str) -> str | None:
    """Why ``text`` cannot be used, for its first character that draws nothing; else None."""
    for i, ch in enumerate(text):
        if ch in _BIDI_CONTROLS:
            return f"{what} may not contain a bidirectional control ({_name(ch)})"
        if ch in _CONTROLS:
            return f"{what} may not contain a control character ({_name(ch)})"
        if ch in IGNORABLE:
            if (ch == _ZWJ and _emoji_joiner(text, i)) or _presentation_selector(text, i):
                continue
            return f"{what} may not contain an invisible character ({_name(ch)})"
        if ch in BLANK_GLYPHS:
            return f"{what} may not contain an invisible character ({_name(ch)})"
    return None


def visible(ch: str) -> bool:
    """Whether ``ch`` draws ink of its own: a letter, digit, punctuation mark or symbol that is
    neither default-ignorable nor blank (spaces and combining marks do not count)."""
    return ch not in IGNORABLE and ch not in BLANK_GLYPHS and bool(_INK.contains(ch))


def normalise_text(value: str, *, max_length: int, what: str = "text") -> str:
    """``value`` normalised, or ``TextRefused`` saying why it cannot be used."""
    # What was typed is checked first, so that the reason names the character the player
    # typed; NFKC can make another invisible one (U+3164 becomes U+1160), so its result too.
    reason = _refusal(value, what)
    if reason is None:
        text = str(_NFKC.normalize(value))
        reason = _refusal(text, what)
    if reason is not None:
        raise TextRefused(reason)
    text = " ".join(text.split())
    if not any(visible(ch) for ch in text):
        raise TextRefused(f"{what} needs at least one visible character")
    if len(text) > max_length:
        raise TextRefused(f"{what} is limited to {max_length} characters")
    return text


def normaliser(max_length: int, what: str) -> Callable[[str], str]:
    """A validator (for pydantic's ``AfterValidator``) normalising one kind of text."""

    def validate(value: str) -> str:
        return normalise_text(value, max_length=max_length, what=what)

    return validate


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (section 4): NFD, each character replaced by its
    prototype in Unicode's confusables.txt, default-ignorable characters removed, NFD again."""
    return str(_SPOOF.getSkeleton(0, text))


def _folded(text: str) -> str:
    """The skeleton, case folded, and the skeleton of that: a case-folded letter can have a
    prototype of its own ("M" folds to "m", whose prototype is "rn")."""
    return skeleton(skeleton(text).casefold())


@lru_cache(maxsize=4096)
def name_keys(name: str) -> frozenset[str]:
    """What nicknames are compared by: the folded skeleton of the name as typed and of the name
    case folded first. Two names are one when they share a key: they look alike ("Host" with a
    Cyrillic "о"; "Ian" and "lan", whose capital I is a small L's look-alike) or differ only in
    case ("MIA" and "Mia": the first key alone would read the capital I as an L). The name is
    put in NFKC first, as the door puts every nickname (full-width letters have no prototype of
    their own in confusables.txt). Kept for the names seen last: a join compares the newcomer's
    name with every member's, four skeletons each."""
    name = str(_NFKC.normalize(name))
    return frozenset((_folded(name), _folded(name.casefold())))
