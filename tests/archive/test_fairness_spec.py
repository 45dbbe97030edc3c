"""docs/fairness.md is precise enough for a third party: the generator as the document specifies it
(MT19937 from Matsumoto and Nishimura's reference, seeded as the document says; no ``random``
module) re-derives the random events of real logs of both games: Condottiere's drawn first
Condottiere (SET-2) and its start shuffle (SET-3, RL-10), Rio de la Plata's turn order
(RIO-SETUP-4) and its dice."""

from __future__ import annotations

import hashlib
import random

import pytest

from games import get_game
from games.condottiere.board import DECK_COUNTS
from tests.random_play import play_out


class SpecGenerator:
    """docs/fairness.md, "The generator", written from the document alone."""

    def __init__(self, text: str):
        data = text.encode("utf-8")
        key = int.from_bytes(data + hashlib.sha512(data).digest(), "big")
        words = []
        while key:
            words.append(key & 0xFFFFFFFF)
            key >>= 32
        self._init_by_array(words or [0])

    def _init_genrand(self, s: int) -> None:
        self.mt = [0] * 624
        self.mt[0] = s
        for i in range(1, 624):
            self.mt[i] = (1812433253 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        self.index = 624

    def _init_by_array(self, key: list[int]) -> None:
        self._init_genrand(19650218)
        mt, n = self.mt, 624
        i, j = 1, 0
        for _ in range(max(n, len(key))):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525)) + key[j] + j) & 0xFFFFFFFF
            i, j = i + 1, j + 1
            if i >= n:
                mt[0], i = mt[n - 1], 1
            if j >= len(key):
                j = 0
        for _ in range(n - 1):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
            i += 1
            if i >= n:
                mt[0], i = mt[n - 1], 1
        mt[0] = 0x80000000

    def _genrand_int32(self) -> int:
        mt = self.mt
        if self.index >= 624:
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def getrandbits(self, k: int) -> int:
        assert 1 <= k <= 32
        return self._genrand_int32() >> (32 - k)

    def randbelow(self, n: int) -> int:
        k = n.bit_length()
        r = self.getrandbits(k)
        while r >= n:
            r = self.getrandbits(k)
        return r

    def randint(self, a: int, b: int) -> int:
        return a + self.randbelow(b - a + 1)

    def shuffle(self, x: list) -> None:
        for i in range(len(x) - 1, 0, -1):
            j = self.randbelow(i + 1)
            x[i], x[j] = x[j], x[i]


@pytest.mark.parametrize("text", ["0/0", "42/3", "340282366920938463463374607431768211455/17"])
def test_the_documented_generator_is_cpythons(text):
    spec, real = SpecGenerator(text), random.Random(text)
    deck, order = list(range(110)), list(range(110))
    spec.shuffle(deck)
    real.shuffle(order)
    assert deck == order
    assert [spec.randint(1, 6) for _ in range(50)] == [real.randint(1, 6) for _ in range(50)]


@pytest.mark.parametrize("ruleset, seed", [("2006", 5), ("classic", "123456789012345678901234567890")])
def test_rl_10_set_2_set_3_condottieres_first_draws_follow_the_document(ruleset, seed):
    game = get_game("condottiere")
    config = game.configure({"players": 4, "ruleset": ruleset, "seed": seed})
    events, _ = play_out(game, config, random.Random(1))
    chosen = next(e for e in events if e["type"] == "first_condottiere_chosen")
    assert chosen["drawn"] and chosen["seat"] == SpecGenerator(f"{seed}/0").randbelow(4)
    deck = sorted(code for code, count in DECK_COUNTS[ruleset].items() for _ in range(count))
    SpecGenerator(f"{seed}/1").shuffle(deck)
    start = next(e for e in events if e["type"] == "deck_shuffled")
    assert start["reason"] == "start" and start["cards"] == deck


def test_rio_setup_4_the_order_and_every_die_follow_the_document():
    game = get_game("rio_de_la_plata")
    seed = 2**100 + 7
    config = game.configure({"players": 4, "seed": str(seed)})
    events, _ = play_out(game, config, random.Random(2))
    counter = 0
    checked = 0
    for event in events:
        if event["type"] == "order_drawn":
            order = [0, 1, 2, 3]
            SpecGenerator(f"{seed}/{counter}").shuffle(order)
            assert event["order"] == order
        elif event["type"] == "dice_rolled":
            draw = SpecGenerator(f"{seed}/{counter}")
            assert event["dice"] == [draw.randint(1, 6) for _ in range(2)]
        else:
            continue
        counter += 1
        checked += 1
    assert checked > 5
