"""Forbidden words: the matcher (``ears.words.match_phrases``) on
hand-written recogniser outputs against the shipped rulesets' phrases, and
the loader's errors for ``[listening.words]``."""

from __future__ import annotations

from typing import Any

import pytest

from companion.config.rulesets import RULESET_DIR, load_ruleset
from companion.core.events import SpeechFlagged
from companion.core.rules import ForbiddenWords
from companion.core.ruleset_load import DataFileError, parse_ruleset
from companion.ears.words import WordHit, flag_of, match_phrases

CLUB = load_ruleset("club").forbidden_words
TOURNAMENT = load_ruleset("tournament").forbidden_words


def final(*words: str | tuple[str, float], text: str | None = None) -> dict[str, Any]:
    """A final result as ``KaldiRecognizer.Result()`` gives it with
    ``SetWords(True)``: word i from 0.5·i to 0.5·i + 0.4 s; a bare word has
    confidence 1."""
    items = []
    for i, word in enumerate(words):
        spelled, conf = (word, 1.0) if isinstance(word, str) else word
        items.append({"conf": conf, "end": 0.5 * i + 0.4, "start": 0.5 * i, "word": spelled})
    heard = " ".join(item["word"] for item in items)
    return {"result": items, "text": heard if text is None else text}


def hit(phrase: str, words: str, first: int, last: int, confidence: float = 1.0) -> WordHit:
    """A hit over words ``first..last`` of a :func:`final`."""
    return WordHit(phrase, words, 0.5 * first, 0.5 * last + 0.4, confidence)


# fmt: off
CASES: list[tuple[str, tuple[ForbiddenWords, ...], dict[str, Any], float, list[WordHit]]] = [
    # «Клянусь» and its forms (club removal.2 «любых смысловых производных»)
    ("oath", CLUB, final("клянусь"), 0.8, [hit("oath", "клянусь", 0, 0)]),
    ("oath-yo", CLUB, final("мы", "клянёмся"), 0.8, [hit("oath", "клянёмся", 1, 1)]),
    ("oath-e", CLUB, final("клянемся"), 0.8, [hit("oath", "клянемся", 0, 0)]),
    ("oath-future", CLUB, final("поклянусь"), 0.8, [hit("oath", "поклянусь", 0, 0)]),
    ("oath-past", CLUB, final("он", "клялся"), 0.8, [hit("oath", "клялся", 1, 1)]),
    ("oath-capital", CLUB, final("Клянусь"), 0.8, [hit("oath", "Клянусь", 0, 0)]),
    ("oath-in-speech", CLUB, final("мамой", "клянусь", "я", "мирный"), 0.8, [hit("oath", "клянусь", 1, 1)]),
    ("oath-twice", CLUB, final("клянусь", "клянусь"), 0.8,
     [hit("oath", "клянусь", 0, 0), hit("oath", "клянусь", 1, 1)]),
    # a phrase across words
    ("tooth", CLUB, final("зуб", "даю"), 0.8, [hit("oath", "зуб даю", 0, 1)]),
    ("tooth-reversed", CLUB, final("даю", "зуб", "он", "мафия"), 0.8, [hit("oath", "даю зуб", 0, 1)]),
    ("tooth-will-give", CLUB, final("я", "зуб", "дам"), 0.8, [hit("oath", "зуб дам", 1, 2)]),
    ("word-of-honour", CLUB, final("честное", "слово"), 0.8, [hit("oath", "честное слово", 0, 1)]),
    # a partial phrase is nothing
    ("tooth-alone", CLUB, final("у", "меня", "болит", "зуб"), 0.8, []),
    ("tooth-apart", CLUB, final("зуб", "я", "даю"), 0.8, []),
    # every word above the threshold; the phrase's confidence is its lowest word's
    ("below", CLUB, final(("клянусь", 0.79)), 0.8, []),
    ("at-threshold", CLUB, final(("клянусь", 0.8)), 0.8, [hit("oath", "клянусь", 0, 0, 0.8)]),
    ("one-word-below", CLUB, final("зуб", ("даю", 0.5)), 0.8, []),
    ("lowest-word", CLUB, final(("зуб", 0.9), ("даю", 0.85)), 0.8, [hit("oath", "зуб даю", 0, 1, 0.85)]),
    ("threshold-zero", CLUB, final(("клянусь", 0.0)), 0.0, [hit("oath", "клянусь", 0, 0, 0.0)]),
    # «отвечаю» is the oath, answering is not
    ("answer-oath", CLUB, final("отвечаю"), 0.8, [hit("oath", "отвечаю", 0, 0)]),
    ("answer-for-words", CLUB, final("отвечаю", "за", "свои", "слова"), 0.8, [hit("oath", "отвечаю", 0, 0)]),
    ("answer-provoked", CLUB, final("отвечаешь"), 0.8, [hit("oath", "отвечаешь", 0, 0)]),
    ("will-answer", CLUB, final("я", "отвечу", "на", "вопрос"), 0.8, []),
    ("answering", CLUB, final("я", "отвечаю", "на", "вопрос"), 0.8, []),
    ("answering-doubtful-na", CLUB, final("отвечаю", ("на", 0.3), "вопрос"), 0.8, []),
    # bets (club team_loss.1): «спорим» is also "we argue"
    ("bet", CLUB, final("спорим", "он", "шериф"), 0.8, [hit("bet", "спорим", 0, 0)]),
    ("we-argue", CLUB, final("мы", "спорим", "о", "нём"), 0.8, []),
    ("no-arguing", CLUB, final("давай", "не", "спорим"), 0.8, []),
    # nothing heard, or nothing to match with
    ("no-result-key", CLUB, {"text": ""}, 0.8, []),
    ("no-result-key-text", CLUB, {"text": "клянусь"}, 0.8, []),  # SetWords off: no confidences
    ("empty-text", CLUB, {"result": [], "text": ""}, 0.8, []),
    ("ordinary", CLUB, final("я", "мирный", "житель"), 0.8, []),
    ("unknown-word", CLUB, final("[unk]"), 0.8, []),
    ("malformed-word", CLUB, {"result": [{"word": "клянусь", "start": 0.0}], "text": "клянусь"}, 0.8, []),
    ("no-phrases", (), final("клянусь"), 0.8, []),
    # the tournament's lists
    ("t-honestly", TOURNAMENT, final("честно", "я", "мирный"), 0.8, [hit("honestly", "честно", 0, 0)]),
    ("t-dishonest", TOURNAMENT, final("это", "нечестно"), 0.8, [hit("honestly", "нечестно", 1, 1)]),
    ("t-honest-word", TOURNAMENT, final("честное", "слово"), 0.8, [hit("honestly", "честное", 0, 0)]),
    ("t-hyphen", TOURNAMENT, final("ей-богу"), 0.8, [hit("religion", "ей-богу", 0, 0)]),
    ("t-two-offences", TOURNAMENT, final("богом", "клянусь"), 0.8,
     [hit("religion", "богом", 0, 0), hit("oath", "клянусь", 1, 1)]),
    ("t-rich", TOURNAMENT, final("богатый", "город"), 0.8, []),
    ("t-gentlemen", TOURNAMENT, final("господа", "игроки"), 0.8, []),
    ("t-longest", TOURNAMENT, final("держу", "пари"), 0.8, [hit("bet", "держу пари", 0, 1)]),
    ("t-shorter-if-doubtful", TOURNAMENT, final(("держу", 0.4), "пари"), 0.8, [hit("bet", "пари", 1, 1)]),
    ("t-cross", TOURNAMENT, final("вот", "тебе", "крест"), 0.8, [hit("religion", "вот тебе крест", 0, 2)]),
]
# fmt: on


@pytest.mark.parametrize(
    ("phrases", "result", "threshold", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_match_phrases(
    phrases: tuple[ForbiddenWords, ...],
    result: dict[str, Any],
    threshold: float,
    expected: list[WordHit],
) -> None:
    assert match_phrases(result, phrases, threshold) == expected


def test_the_times_are_the_recognisers() -> None:
    result = {
        "result": [
            {"conf": 0.97, "end": 12.93, "start": 12.42, "word": "зуб"},
            {"conf": 0.91, "end": 13.31, "start": 12.93, "word": "даю"},
        ],
        "text": "зуб даю",
    }
    assert match_phrases(result, CLUB, 0.9) == [WordHit("oath", "зуб даю", 12.42, 13.31, 0.91)]


def test_a_hit_is_the_tables_input() -> None:
    (found,) = match_phrases(final(("зуб", 0.91234), "даю"), CLUB, 0.8)
    assert flag_of(found) == SpeechFlagged("word", 0, 0.912, "oath", "зуб даю")
    assert flag_of(found, seat=4).seat == 4


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan")])
def test_a_threshold_outside_0_to_1_is_refused(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold must be 0 to 1"):
        match_phrases(final("клянусь"), CLUB, threshold)


def test_every_tournament_clause_has_its_phrases() -> None:
    offences = {entry.id: entry.offence for entry in TOURNAMENT}
    assert offences == {
        "oath": "oath_or_bet",  # 4.6.8 (3.1.1)
        "bet": "oath_or_bet",  # 4.6.8 (3.1.2)
        "honestly": "honestly_or_religion",  # 4.6.7 (3.1.16)
        "religion": "honestly_or_religion",  # 4.6.7 (3.1.16)
    }
    assert {entry.id: entry.offence for entry in CLUB} == {
        "oath": "oath_phrases",  # removal.2
        "bet": "bet_offer",  # team_loss.1
    }


# --- the loader ------------------------------------------------------------------

SOURCE = "rulesets/club.toml"
CLUB_TEXT = (RULESET_DIR / "club.toml").read_text(encoding="utf-8")
OATH = '"клян*", "поклян*"'

# fmt: off
ERRORS = [
    ("short-stem", OATH, '"кл*", "поклян*"', "listening.words.oath.phrases[0]", "at least 3 letters"),
    ("hyphen", OATH, '"ей-богу", "поклян*"', "listening.words.oath.phrases[0]", "a word is letters"),
    ("star-inside", OATH, '"кл*ян", "поклян*"', "listening.words.oath.phrases[0]", "a word is letters"),
    ("digits", OATH, '"клянусь2", "поклян*"', "listening.words.oath.phrases[0]", "a word is letters"),
    ("empty-phrase", OATH, '"  ", "поклян*"', "listening.words.oath.phrases[0]", "1 to 6 words"),
    ("too-long", OATH, '"а б в г д е ж", "поклян*"', "listening.words.oath.phrases[0]", "1 to 6 words"),
    ("twice-normalised", OATH, '"клян*", "КЛЯН*"', "listening.words.oath.phrases[1]", "listed twice"),
    ("not-a-string", OATH, '"клян*", 5', "listening.words.oath.phrases[1]", "expected a string"),
    ("unknown-offence", 'offence = "bet_offer"', 'offence = "bets"', "listening.words.bet.offence", "unknown offence 'bets'"),
    ("unknown-key", 'offence = "bet_offer"', 'offence = "bet_offer"\nclause = "x"', "listening.words.bet.clause", "unknown key"),
    ("no-phrases", 'phrases = ["спорим", "поспорим", "на спор", "пари", "забьемся"]\n', "", "listening.words.bet.phrases", "required key is missing"),
    ("empty-list", 'phrases = ["спорим", "поспорим", "на спор", "пари", "забьемся"]', "phrases = []", "listening.words.bet.phrases", "at least one phrase"),
    ("bad-unless", 'unless = ["мы спорим", "не спорим"]', 'unless = ["мы-спорим"]', "listening.words.bet.unless[0]", "a word is letters"),
    ("bad-id", "[listening.words.bet]", "[listening.words.Bet]", "listening.words.Bet", "snake_case"),
    ("word-is-no-speech-kind", 'night = "night_gestures_talk_touch"', 'night = "night_gestures_talk_touch"\nword = "oath_phrases"', "listening.word", "unknown key"),
]
# fmt: on


@pytest.mark.parametrize(
    ("old", "new", "key", "words"), [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS]
)
def test_a_broken_phrase_list_names_file_key_and_line(
    old: str, new: str, key: str, words: str
) -> None:
    assert CLUB_TEXT.count(old) == 1, old
    text = CLUB_TEXT.replace(old, new)
    with pytest.raises(DataFileError) as caught:
        parse_ruleset(text, SOURCE)
    error = caught.value
    assert (error.source, error.key) == (SOURCE, key)
    assert error.line is not None and str(error).startswith(f"{SOURCE}:{error.line}: {key}: ")
    assert words in str(error) and "\n" not in str(error)


def test_phrases_are_kept_normalised() -> None:
    text = CLUB_TEXT.replace(OATH, '"КЛЯНЁМСЯ   все", "поклян*"')
    oath = parse_ruleset(text, SOURCE).forbidden_words[0]
    assert oath.phrases[0] == "клянемся все"


def test_a_ruleset_without_listening_words_has_none() -> None:
    start = CLUB_TEXT.index("# Forbidden phrases")
    assert parse_ruleset(CLUB_TEXT[:start], SOURCE).forbidden_words == ()
