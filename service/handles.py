"""Handles that may not be taken: those that pass for a bot or for a placeholder the server shows.

A bot's seat is shown as ``"<level> bot"`` and rated as ``"bot:<level>"`` (``replays.ratings``), a
deleted account's seats as ``"deleted player"`` (``service.account_deletion``): an account with
such a handle would pass for them on leaderboards, in archives and at tables. So a handle is
reserved when, compared in its *skeleton*, it is one of those names or begins or ends with the word
"bot".

The skeleton follows Unicode TR39's (section 4, "Confusable Detection"): NFKC and case folding
(so full-width, ligature, and case variants are one), then every character replaced by its
prototype in Unicode's confusables data, so Cyrillic ``о`` or Greek ``ο`` in ``bоt`` is the Latin
``o``; then only letters and digits are kept (``bot:random``, ``bot random``, ``bot_random`` are
one). The data comes from ``confusable_homoglyphs`` (PyPI, maintained: it ships Unicode's
``confusables.txt`` as JSON with a loader, 3.3.1 of 2024); it has no skeleton function, so the few
lines below choose the prototype: the ASCII letters and digits the data calls confusable are put
in classes (``0`` and ``o``; ``1``, ``l`` and ``i``), and a character becomes the least member of
the class of its ASCII homoglyphs, so every spelling of a name meets in one skeleton. Not ``confusables``
(PyPI): unmaintained since 2021. The stricter comparison is only used to *refuse*: a handle is
stored and shown as it was given, and compared for uniqueness by ``service.identity.fold_handle``.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from confusable_homoglyphs import confusables

from bots import all_levels

# Names the server shows for seats that are no account's.
PLACEHOLDERS = ("deleted player", "anonymous", "nobody", "system", "server")
BOT_WORD = "bot"


def _ascii(glyph: str) -> str | None:
    folded = unicodedata.normalize("NFKC", glyph).casefold()
    return folded if len(folded) == 1 and folded.isascii() and folded.isalnum() else None


@functools.cache
def _ascii_classes() -> dict[str, str]:
    """Each ASCII letter or digit -> the least of those it is confusable with, directly or through
    others (``0``, ``o``; ``1``, ``l``, ``i``): a union-find over the data's pairs."""
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.setdefault(c, c) != c:
            c = parent[c]
        return c

    for char, glyphs in confusables.confusables_data.items():
        a = _ascii(char)
        for glyph in glyphs:
            b = _ascii(glyph["c"])
            if a is not None and b is not None:
                ra, rb = root(a), root(b)
                parent[max(ra, rb)] = min(ra, rb)
    return {c: root(c) for c in parent}


@functools.cache
def _prototype(char: str) -> str:
    """The ASCII letter or digit ``char`` passes for (itself when none)."""
    classes = _ascii_classes()
    own = _ascii(char)
    candidates = {own} if own is not None else set()
    for glyph in confusables.confusables_data.get(char, ()):
        other = _ascii(glyph["c"])
        if other is not None:
            candidates.add(other)
    return min(classes.get(c, c) for c in candidates) if candidates else char


def _mapped(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", "".join(_prototype(c) for c in text)).casefold()


def words(name: str) -> list[str]:
    """The skeleton's words: letters and digits split at anything else."""
    return [w for w in re.split(r"[\W_]+", _mapped(name)) if w]


def skeleton(name: str) -> str:
    """TR39-style skeleton of ``name``: NFKC, case fold, confusables to their prototype, only
    letters and digits kept."""
    return "".join(words(name))


@functools.cache
def _reserved_skeletons() -> frozenset[str]:
    bot = skeleton(BOT_WORD)
    names = {skeleton(p) for p in PLACEHOLDERS} | {bot}
    for level in all_levels():
        names |= {bot + skeleton(level), skeleton(level) + bot}
    return frozenset(names)


def reserved(handle: str) -> bool:
    """Whether ``handle`` passes for a bot or a placeholder (see the module's docstring)."""
    parts = words(handle)
    bot = skeleton(BOT_WORD)
    if parts and (parts[0] == bot or parts[-1] == bot):
        return True
    return "".join(parts) in _reserved_skeletons()
