"""Phrase catalogues (issue 3, item 2): numbers and plurals, the exact words
of the key phrases, a phrase for every cue the engine can say, the variants
a game pre-renders, and catalogue errors that name file, key and line.

No audio here: rendering every variant is tested with the speaker.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.config.rulesets import available_rulesets, load_ruleset
from companion.core.forum.rules import forum_rules
from companion.core.rules import Ruleset
from companion.core.vocabulary import CUES, RULESET_CUES, names
from companion.voice import numerals
from companion.voice.catalogue_load import load_catalogue, parse_catalogue
from companion.voice.phrases import (
    CUE_ARGS,
    RULESET_CUE_ARGS,
    VOICES_DIR,
    Catalogue,
    CatalogueError,
    MissingArgument,
    UnknownCue,
    needed_cues,
)

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("ru", "en")
RULESETS = available_rulesets()
#: every catalogue the repository ships
SHIPPED = sorted(path.stem for path in VOICES_DIR.glob("*.toml"))


@pytest.fixture(scope="module", params=LANGS)
def catalogue(request: pytest.FixtureRequest) -> Catalogue:
    return load_catalogue(request.param)


@pytest.fixture(scope="module")
def ru() -> Catalogue:
    return load_catalogue("ru")


@pytest.fixture(scope="module")
def en() -> Catalogue:
    return load_catalogue("en")


# -- numbers ----------------------------------------------------------------

# number, masculine, feminine, neuter
RU_CARDINALS = [
    (0, "ноль", "ноль", "ноль"),
    (1, "один", "одна", "одно"),
    (2, "два", "две", "два"),
    (3, "три", "три", "три"),
    (4, "четыре", "четыре", "четыре"),
    (5, "пять", "пять", "пять"),
    (11, "одиннадцать", "одиннадцать", "одиннадцать"),
    (12, "двенадцать", "двенадцать", "двенадцать"),
    (14, "четырнадцать", "четырнадцать", "четырнадцать"),
    (21, "двадцать один", "двадцать одна", "двадцать одно"),
    (22, "двадцать два", "двадцать две", "двадцать два"),
    (25, "двадцать пять", "двадцать пять", "двадцать пять"),
    (101, "сто один", "сто одна", "сто одно"),
]
RU_ORDINALS = [
    (1, "первый", "первая", "первое"),
    (2, "второй", "вторая", "второе"),
    (3, "третий", "третья", "третье"),
    (4, "четвёртый", "четвёртая", "четвёртое"),
    (5, "пятый", "пятая", "пятое"),
    (11, "одиннадцатый", "одиннадцатая", "одиннадцатое"),
    (12, "двенадцатый", "двенадцатая", "двенадцатое"),
    (14, "четырнадцатый", "четырнадцатая", "четырнадцатое"),
    (21, "двадцать первый", "двадцать первая", "двадцать первое"),
    (22, "двадцать второй", "двадцать вторая", "двадцать второе"),
    (25, "двадцать пятый", "двадцать пятая", "двадцать пятое"),
    (101, "сто первый", "сто первая", "сто первое"),
]
# number -> index of the Russian noun form: 0 one, 1 few, 2 many
RU_PLURAL = [
    (0, 2), (1, 0), (2, 1), (3, 1), (4, 1), (5, 2), (11, 2), (12, 2), (14, 2),
    (21, 0), (22, 1), (25, 2), (101, 0), (111, 2), (112, 2), (122, 1), (-1, 0), (-10, 2),
]  # fmt: skip


@pytest.mark.parametrize(("number", "m", "f", "n"), RU_CARDINALS)
def test_russian_cardinals(number: int, m: str, f: str, n: str) -> None:
    assert [numerals.cardinal(number, "ru", g) for g in ("m", "f", "n")] == [m, f, n]


@pytest.mark.parametrize(("number", "m", "f", "n"), RU_ORDINALS)
def test_russian_ordinals(number: int, m: str, f: str, n: str) -> None:
    assert [numerals.ordinal(number, "ru", g) for g in ("m", "f", "n")] == [m, f, n]


@pytest.mark.parametrize(("number", "index"), RU_PLURAL)
def test_russian_plural_choice(number: int, index: int) -> None:
    assert numerals.plural_index(number, "ru") == index


# noun forms, gender of the noun, number, expected words
RU_NOUNS = [
    ("голос|голоса|голосов", "m", 0, "ноль голосов"),
    ("голос|голоса|голосов", "m", 1, "один голос"),
    ("голос|голоса|голосов", "m", 2, "два голоса"),
    ("голос|голоса|голосов", "m", 4, "четыре голоса"),
    ("голос|голоса|голосов", "m", 5, "пять голосов"),
    ("голос|голоса|голосов", "m", 11, "одиннадцать голосов"),
    ("голос|голоса|голосов", "m", 21, "двадцать один голос"),
    ("голос|голоса|голосов", "m", 22, "двадцать два голоса"),
    ("голос|голоса|голосов", "m", 101, "сто один голос"),
    ("секунда|секунды|секунд", "f", 1, "одна секунда"),
    ("секунда|секунды|секунд", "f", 2, "две секунды"),
    ("секунда|секунды|секунд", "f", 10, "десять секунд"),
    ("секунда|секунды|секунд", "f", 14, "четырнадцать секунд"),
    ("секунда|секунды|секунд", "f", 21, "двадцать одна секунда"),
    ("секунда|секунды|секунд", "f", 22, "двадцать две секунды"),
    ("секунда|секунды|секунд", "f", 25, "двадцать пять секунд"),
    ("фол|фола|фолов", "m", 1, "один фол"),
    ("фол|фола|фолов", "m", 3, "три фола"),
    ("фол|фола|фолов", "m", 5, "пять фолов"),
    ("фол|фола|фолов", "m", 12, "двенадцать фолов"),
    ("замечание|замечания|замечаний", "n", 1, "одно замечание"),
    ("замечание|замечания|замечаний", "n", 2, "два замечания"),
    ("замечание|замечания|замечаний", "n", 5, "пять замечаний"),
    ("замечание|замечания|замечаний", "n", 12, "двенадцать замечаний"),
    ("замечание|замечания|замечаний", "n", 21, "двадцать одно замечание"),
    ("игрок|игрока|игроков", "m", 0, "ноль игроков"),
    ("игрок|игрока|игроков", "m", 1, "один игрок"),
    ("игрок|игрока|игроков", "m", 3, "три игрока"),
    ("игрок|игрока|игроков", "m", 12, "двенадцать игроков"),
    ("игрок|игрока|игроков", "m", 21, "двадцать один игрок"),
]


def _probe(lang: str, template: str) -> Catalogue:
    """A catalogue with one cue, ``probe``, that takes any argument."""
    return parse_catalogue(f'language = "{lang}"\n[cues]\nprobe = "{template}"\n', "probe.toml")


@pytest.mark.parametrize(("forms", "gender", "number", "words"), RU_NOUNS)
def test_russian_agreeing_nouns(forms: str, gender: str, number: int, words: str) -> None:
    probe = _probe("ru", f"Итого: {{n:{gender}|{forms}}}")
    assert probe.text("probe", {"n": number}) == f"Итого: {words}"


@pytest.mark.parametrize(
    ("number", "gender", "words"),
    [
        (3, "m", "третий фол"),
        (4, "m", "четвёртый фол"),
        (3, "n", "третье замечание"),
        (4, "n", "четвёртое замечание"),
        (5, "n", "пятое замечание"),
        (1, "f", "первая ночь"),
    ],
)
def test_russian_ordinal_placeholder(number: int, gender: str, words: str) -> None:
    noun = words.split()[-1]
    probe = _probe("ru", f"Итого: {{n:ordinal:{gender}}} {noun}")
    assert probe.text("probe", {"n": number}) == f"Итого: {words}"


EN_NUMBERS = [
    # number, cardinal, noun phrase, ordinal
    (0, "zero", "zero votes", "zeroth"),
    (1, "one", "one vote", "first"),
    (2, "two", "two votes", "second"),
    (3, "three", "three votes", "third"),
    (5, "five", "five votes", "fifth"),
    (11, "eleven", "eleven votes", "eleventh"),
    (12, "twelve", "twelve votes", "twelfth"),
    (21, "twenty-one", "twenty-one votes", "twenty-first"),
    (22, "twenty-two", "twenty-two votes", "twenty-second"),
    (101, "one hundred and one", "one hundred and one votes", "one hundred and first"),
]


@pytest.mark.parametrize(("number", "cardinal", "phrase", "ordinal"), EN_NUMBERS)
def test_english_numbers(number: int, cardinal: str, phrase: str, ordinal: str) -> None:
    assert numerals.cardinal(number, "en") == cardinal
    assert numerals.ordinal(number, "en", "f") == ordinal  # gender means nothing in English
    assert _probe("en", "Total: {n|vote|votes}").text("probe", {"n": number}) == f"Total: {phrase}"


@pytest.mark.parametrize(
    ("lang", "items", "spoken"),
    [
        ("ru", [], ""),
        ("ru", ["три"], "три"),
        ("ru", ["три", "шесть"], "три и шесть"),
        ("ru", ["три", "шесть", "девять"], "три, шесть и девять"),
        ("en", ["three", "six", "nine"], "three, six and nine"),
    ],
)
def test_spoken_lists(lang: str, items: list[str], spoken: str) -> None:
    assert numerals.join(items, lang) == spoken


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="'de'"):
        numerals.cardinal(3, "de")


# -- the words of the key phrases -----------------------------------------------

CLUB = load_ruleset("club")
TOURNAMENT = load_ruleset("tournament")
FORUM = load_ruleset("forum")

PHRASES: list[tuple[str, str, dict[str, int | str], Ruleset | None, str]] = [
    ("ru", "speech_start", {"seat": 3, "seconds": 60}, None, "Слово предоставляется игроку номер три."),
    ("ru", "speech_start", {"seat": 3, "seconds": 45}, None, "Слово предоставляется игроку номер три. Сорок пять секунд."),
    ("ru", "vote_question", {"seat": 7}, None, "Кто за то, чтобы игрок номер семь покинул стол?"),
    ("ru", "thanks", {}, None, "Спасибо."),
    ("ru", "time_up", {"seat": 4}, None, "Стоп."),
    ("ru", "votes_accepted", {"votes": 5}, None, "Пять голосов. Принято."),
    ("ru", "votes_accepted", {"votes": 1}, None, "Один голос. Принято."),
    ("ru", "votes_accepted", {"votes": 2}, None, "Два голоса. Принято."),
    ("ru", "votes_accepted", {"votes": 0}, None, "Ноль голосов. Принято."),
    ("ru", "offence_counted", {"seat": 3, "count": 3, "unit": "foul"}, None, "Игрок номер три, третий фол."),
    ("ru", "offence_counted", {"seat": 3, "count": 4, "unit": "remark"}, None, "Игрок номер три, четвёртое замечание."),
    ("ru", "offence_counted", {"seat": 3, "count": 2, "unit": "strike"}, None, "Игрок номер три, нарушение номер два."),
    ("ru", "time_warning", {"seconds": 10}, None, "Десять секунд."),
    ("ru", "tie_speech_start", {"seat": 2, "seconds": 21}, None, "Игрок номер два, у вас двадцать одна секунда на оправдание."),
    ("ru", "last_word_start", {"seat": 10, "seconds": 30}, None, "Игрок номер десять, ваше последнее слово. Тридцать секунд."),
    ("ru", "voting_begins", {"nominees": "3"}, None, "На голосование выставлен игрок номер три."),
    ("ru", "voting_begins", {"nominees": "3,6"}, None, "На голосование выставлены игроки номер три и шесть."),
    ("ru", "voting_begins", {"nominees": "6,3,9"}, None, "На голосование выставлены игроки номер шесть, три и девять."),
    ("ru", "tie", {"seats": "3,6"}, None, "Голоса разделились поровну. Слово для оправдания получают игроки номер три и шесть."),
    ("ru", "rest_votes", {"seat": 6, "votes": 4}, None, "Остальные голоса — за игрока номер шесть. Четыре голоса."),
    ("ru", "maniac_left", {"seat": 5}, CLUB, "Наш игровой стол покинул Маньяк."),
    ("ru", "time_added", {"seconds": 10}, None, "Плюс десять секунд."),
    ("ru", "time_added", {"seconds": -10}, None, "Минус десять секунд."),
    ("ru", "time_added", {"seconds": -1}, None, "Минус одна секунда."),
    ("ru", "game_won", {"team": "civilians"}, CLUB, "Игра окончена. Победили мирные жители."),
    ("ru", "game_won", {"team": "civilians,mafia"}, CLUB, "Игра окончена. Победители: Мирные жители и Мафия."),
    ("ru", "game_won", {"team": "civilians,mafia"}, None, "Игра окончена. Победители: civilians и mafia."),
    ("ru", "team_loses", {"team": "black"}, TOURNAMENT, "Чёрной команде засчитывается поражение."),
    ("en", "speech_start", {"seat": 3, "seconds": 60}, None, "The floor goes to player three."),
    ("en", "vote_question", {"seat": 7}, None, "Who votes for player seven to leave the table?"),
    ("en", "thanks", {}, None, "Thank you."),
    ("en", "time_up", {"seat": 4}, None, "Stop."),
    ("en", "votes_accepted", {"votes": 5}, None, "Five votes. Accepted."),
    ("en", "votes_accepted", {"votes": 1}, None, "One vote. Accepted."),
    ("en", "offence_counted", {"seat": 3, "count": 3, "unit": "foul"}, None, "Player three, third foul."),
    ("en", "offence_counted", {"seat": 3, "count": 4, "unit": "remark"}, None, "Player three, fourth remark."),
    ("en", "time_warning", {"seconds": 10}, None, "Ten seconds."),
    ("en", "voting_begins", {"nominees": "3,6"}, None, "Nominated for the vote: players three and six."),
    ("en", "time_added", {"seconds": -10}, None, "Minus ten seconds."),
    ("en", "game_won", {"team": "civilians,mafia"}, CLUB, "The game is over. The winners: the civilians and the mafia."),
    # the forum game: the text's own words (docs/forum-rules-catalogue.md 3.5)
    ("ru", "cop_missed", {}, FORUM, "Коп промахнулся."),
    ("ru", "sniper_joined_mm", {}, FORUM, "Снайпер теперь в стане ММ."),
    ("ru", "doctor_lost_role", {}, FORUM, "Доктор никого не лечил и потерял роль."),
    ("ru", "doctor_healed_healthy", {}, FORUM, "Доктор лечил здорового."),
    ("ru", "kamikaze_saved", {}, FORUM, "Коп или Док спасли от пули ММ."),
    ("ru", "lawyer_skipped", {}, FORUM, "Адвокат никого не защищал."),
    ("ru", "bouncer_skipped", {}, FORUM, "Вышибала пропустил ход."),
    ("ru", "child_killed", {"seat": 4}, FORUM, "Было убито Дитя."),
    ("ru", "autokill", {"seat": 4}, FORUM, "Игрок номер четыре: автокилл."),
    ("ru", "shooter_missed", {"shooter": "kamikaze"}, FORUM, "Камикадзе промахнулся."),
    ("ru", "mm_found_child", {}, FORUM, "Мафоманы (за которых стрелял ЖД) нашли свое дитя."),
    ("ru", "vampire_bit_child", {}, FORUM, "Вампир укусил ДМ, но выстрел Копа лишил его этой роли, и Вампир продолжает игру как мж."),
    ("ru", "deadline_soon", {"name": "vote", "minutes": 10}, FORUM, "До конца голосования десять минут."),
    ("ru", "vote_tally", {"tally": "5:4,3:2,7:1"}, FORUM, "Голосование закрыто. Итоги: пять — четыре голоса, три — два голоса и семь — один голос."),
    ("ru", "vote_tally", {"tally": "12:21"}, FORUM, "Голосование закрыто. Итоги: двенадцать — двадцать один голос."),
    ("ru", "vote_tally", {"tally": "-"}, FORUM, "Голосование закрыто. Голосов ни за кого нет."),
    ("ru", "forum_balance", {"basements": "no", "child": "multi"}, FORUM, "Баланс сторон объявлен. Подвалов в игре нет. Играем с многофункциональным Дитя."),
    ("ru", "forum_day", {"day": 3}, FORUM, "Начинается третий игровой день."),
    ("ru", "forum_night", {"day": 3}, FORUM, "Наступает третья ночь."),
    ("ru", "game_won", {"team": "mafia,maniacs"}, FORUM, "Игра окончена. Победители: Мафия и Маны."),
    ("en", "deadline_soon", {"name": "vote", "minutes": 10}, FORUM, "Ten minutes left until the vote closes."),
    ("en", "vote_tally", {"tally": "5:4,3:1"}, FORUM, "The vote is closed. The tally: five — four votes and three — one vote."),
    ("en", "forum_balance", {"basements": "yes", "child": "plain"}, FORUM, "The balance of sides is announced. The game has basements."),
]  # fmt: skip


@pytest.mark.parametrize(("lang", "cue", "args", "rules", "text"), PHRASES)
def test_key_phrases(
    lang: str, cue: str, args: dict[str, int | str], rules: Ruleset | None, text: str
) -> None:
    assert load_catalogue(lang).text(cue, args, rules) == text


@pytest.mark.parametrize(
    ("cue", "args", "key"),
    [
        ("thanks", {}, "thanks"),
        ("time_up", {"seat": 3}, "time_up"),  # «Стоп» does not depend on the seat
        ("vote_question", {"seat": 3}, "vote_question-seat-3"),
        ("speech_start", {"seat": 3, "seconds": 60}, "speech_start-seat-3-seconds-60"),
        ("offence_counted", {"unit": "foul", "seat": 3, "count": 3}, "offence_counted-count-3-seat-3-unit-foul"),
        ("time_added", {"seconds": -10}, "time_added-seconds-minus10"),
        ("voting_begins", {"nominees": "3,6"}, "voting_begins-nominees-3_6"),
        ("game_won", {"team": "civilians,mafia"}, "game_won-team-civilians_mafia"),
        ("vote_tally", {"tally": "5:4,3:2"}, "vote_tally-tally-5_4_3_2"),
        ("forum_balance", {"basements": "no", "child": "multi"}, "forum_balance-basements-no-child-multi"),
        ("deadline_moved", {"name": "vote", "at": "2026-12-01T22:00:00"}, "deadline_moved-name-vote"),
    ],
)  # fmt: skip
def test_phrase_keys(ru: Catalogue, cue: str, args: dict[str, int | str], key: str) -> None:
    assert ru.key(cue, args) == key


def test_a_phrase_chosen_by_two_arguments() -> None:
    probe = parse_catalogue(
        'language = "ru"\n[cues]\nforum_balance.by = ["basements", "child"]\n'
        'forum_balance.yes-multi = "Подвалы, многофункциональное Дитя."\n'
        'forum_balance.default = "Баланс."\n',
        "probe.toml",
    )
    assert probe.text("forum_balance", {"basements": "yes", "child": "multi"}) == (
        "Подвалы, многофункциональное Дитя."
    )
    assert probe.text("forum_balance", {"basements": "no", "child": "multi"}) == "Баланс."
    with pytest.raises(KeyError, match="'child'"):
        probe.text("forum_balance", {"basements": "yes"})


def test_a_game_renders_ahead_only_its_procedures_cues(ru: Catalogue) -> None:
    """The forum game never says a speech's cues, the sports table never a
    results post's (core/vocabulary.py OWN_CUES): neither is rendered ahead."""
    forum = {cue for cue, _, _ in ru.variants(FORUM, 10)}
    club = {cue for cue, _, _ in ru.variants(CLUB, 10)}
    assert "cop_missed" in forum and "speech_start" not in forum
    assert "speech_start" in club and "cop_missed" not in club
    assert {"game_won", "warning", "undone"} <= forum & club


def test_braces_and_capitals() -> None:
    probe = _probe("ru", "{{n}} = {n}. {n}, {n}! {n}")
    assert probe.text("probe", {"n": 2}) == "{n} = два. Два, два! Два"


# -- every cue the engine can say has a phrase ----------------------------------


def _ruleset_cues() -> set[str]:
    cues: set[str] = set()
    for name in RULESETS:
        rules = load_ruleset(name)
        cues |= {s.cue for s in (*rules.night0, *rules.night)}
        cues |= {s.end_cue for s in (*rules.night0, *rules.night) if s.end_cue}
        cues |= {o.exempt_cue for o in rules.offences if o.exempt_cue}
    return cues


def test_the_contract_is_the_engines_vocabulary() -> None:
    """The cues and their arguments come from the engine's declaration
    (``core/vocabulary.py``; replayed games hold the engine to it in
    tests/test_vocabulary.py): the voice keeps no list of its own."""
    assert {cue: names(args) for cue, args in CUES.items()} == CUE_ARGS
    assert {where: names(args) for where, args in RULESET_CUES.items()} == RULESET_CUE_ARGS


@pytest.mark.parametrize("lang", SHIPPED)
def test_every_cue_has_a_phrase(lang: str) -> None:
    """Every shipped catalogue has a phrase for every cue the engine
    declares and every cue the shipped rulesets name, using only the
    arguments the cue is given."""
    catalogue = load_catalogue(lang)
    expected = set(CUES) | _ruleset_cues()
    missing = sorted(expected - catalogue.cues)
    assert not missing, f"{catalogue.source} has no phrase for {missing}"
    for cue, args in CUES.items():
        assert set(catalogue.entries[cue].args) <= set(names(args)), (lang, cue)


def test_both_catalogues_have_the_same_cues(ru: Catalogue, en: Catalogue) -> None:
    assert ru.cues == en.cues


# -- variants: what a game pre-renders --------------------------------------------


def _typical(cue: str, rules: Ruleset, seat: int) -> dict[str, int | str]:
    """Arguments as the engine gives them, for `seat`."""
    t = rules.timings
    seconds = {
        "speech_start": t.speech_s,
        "last_word_start": t.last_word_s,
        "tie_speech_start": t.tie_speech_s,
        "time_warning": t.warning_s,
        "time_added": -10,
    }
    steps = rules.ladder.steps
    values: dict[str, int | str] = {
        "seat": seat,
        "nominees": str(seat),
        "seats": str(seat),
        "seconds": int(seconds.get(cue, 10)),
        "votes": 3,
        "count": 3,
        "unit": rules.ladder.unit,
        "day": 2,
        "night": 1,
        "team": rules.teams[0].id,
        "loss": "_".join((*steps[0].loses, "next_day")) if steps else "",
        "reason": "offence",
        # the forum game's (a tally of votes is known only at the count: "-" is
        # what can be rendered ahead, like a single seat of a list)
        "basements": "no",
        "child": "multi",
        "tally": "-",
        "shooter": "kamikaze",
        "name": "vote",
        "at": "2026-12-01T21:31:00",
        "minutes": forum_rules(rules).warning_minutes if forum_rules(rules) else 10,
    }
    return {name: values[name] for name in needed_cues(rules)[cue]}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_variants_cover_every_cue_and_seat(catalogue: Catalogue, ruleset: str) -> None:
    rules = load_ruleset(ruleset)
    variants = list(catalogue.variants(rules, 10))
    texts = {catalogue.key(cue, args): text for cue, args, text in variants}
    assert len(texts) == len(variants), "variants repeat a key"
    counted = any(offence.cost == "count" for offence in rules.offences)
    for cue in needed_cues(rules):
        if cue in ("offence_counted", "loses_rights") and not counted:
            continue  # nothing is counted, no rights are lost (the forum game)
        for seat in range(1, 11):
            key = catalogue.key(cue, _typical(cue, rules, seat))
            assert key in texts, f"{key} is not pre-rendered for {ruleset}"
    for votes in range(11) if rules.procedure == "sports_table" else ():
        assert catalogue.key("votes_accepted", {"votes": votes}) in texts
        assert catalogue.key("rest_votes", {"seat": 10, "votes": votes}) in texts
    for count in range(1, max((s.at for s in rules.ladder.steps), default=0) + 1):
        args: dict[str, int | str] = {"seat": 1, "count": count, "unit": rules.ladder.unit}
        assert catalogue.key("offence_counted", args) in texts
    assert catalogue.key("time_added", {"seconds": 10}) in texts
    assert 100 < len(variants) < 600  # complete, and not absurd


@pytest.mark.parametrize("ruleset", RULESETS)
def test_variant_texts_are_whole(catalogue: Catalogue, ruleset: str) -> None:
    rules = load_ruleset(ruleset)
    for cue, args, text in catalogue.variants(rules, 12):
        assert text and text == catalogue.text(cue, args, rules)
        assert not re.search(r"[{}|]", text), text
        assert text[0].isupper(), text
        assert re.fullmatch(r"[a-z0-9_-]+", catalogue.key(cue, args))


def test_variants_need_every_cue(tmp_path: Path) -> None:
    (tmp_path / "ru.toml").write_text('[cues]\nthanks = "Спасибо."\n', encoding="utf-8")
    partial = load_catalogue("ru", tmp_path)
    with pytest.raises(UnknownCue, match="night_falls"):
        list(partial.variants(CLUB, 10))


# -- errors name the file, the key and the line -------------------------------------


def _load(tmp_path: Path, body: str, lang: str = "ru") -> Catalogue:
    (tmp_path / f"{lang}.toml").write_text(body, encoding="utf-8")
    return load_catalogue(lang, tmp_path)


BAD = [
    ('[cues]\nthanks = "Спасибо\n', r"ru\.toml:2: invalid TOML"),
    ('language = "ru"\n[cues]\nthanks = "Спасибо."\nvote_question = "Кто за {seta}?"\n',
     r"ru\.toml:4: cues\.vote_question: \{seta\}: unknown placeholder 'seta': cue 'vote_question' is given seat"),
    ('[cues]\nthanks = "Спасибо, {seat}."\n',
     r"ru\.toml:2: cues\.thanks: .*cue 'thanks' is given no arguments"),
    ('[cues]\noffence_counted.by = "unit"\noffence_counted.foul = "{count:ordinal} фол {seets}"\n',
     r"ru\.toml:3: cues\.offence_counted\.foul: \{seets\}: unknown placeholder"),
    ('[cues]\noffence_counted.by = "kind"\noffence_counted.foul = "фол"\n',
     r"ru\.toml:2: cues\.offence_counted\.by: unknown placeholder 'kind'"),
    ('[cues]\n\nvotes_accepted = "{votes|голос|голосов}. Принято."\n',
     r"ru\.toml:3: cues\.votes_accepted: .*ru needs 3 noun forms"),
    ('[cues]\noffence_counted = "{count:ordinall}"\n',
     r"ru\.toml:2: cues\.offence_counted: .*unknown option 'ordinall'"),
    ('[cues]\nthanks = "Спасибо}"\n', r"ru\.toml:2: cues\.thanks: unmatched '\}'"),
    ('[cues]\nvotes_accepted = "{votes:noun}"\n', r"ru\.toml:2: .*'noun' needs"),
    ('[cues]\nthanks = 3\n', r"ru\.toml:2: cues\.thanks: expected a phrase"),
    ('[cues]\ntie.seats = "x"\n', r"ru\.toml:2: cues\.tie: a table of variants needs by"),
    ('[cues]\ntie.by = []\ntie.x = "x"\n', r"ru\.toml:2: cues\.tie: a table of variants needs by"),
    ('[cues]\ntie.by = ["seats", "seats"]\ntie.x = "x"\n', r"ru\.toml:2: cues\.tie\.by: an argument is named twice"),
    ('[cues]\nforum_balance.by = ["basements", "kid"]\nforum_balance.x = "x"\n', r"ru\.toml:2: cues\.forum_balance\.by: unknown placeholder 'kid'"),
    ('[cues]\nvote_tally = "{tally:tally:ordinal}"\n', r"ru\.toml:2: cues\.vote_tally: .*'tally' takes only a gender"),
    ('voice = "ru"\n[cues]\n', r"ru\.toml:1: voice: unknown key"),
    ('language = "de"\n[cues]\n', r"ru\.toml:1: language: 'de' is not one of ru, en"),
    ('language = "ru"\n', r"ru\.toml: expected a \[cues\] table"),
    # limits (voices/README.md): long phrases, names, echoes cut short, nesting, digits
    (f'[cues]\nthanks = "{"с" * 501}"\n', r"ru\.toml:2: cues\.thanks: a phrase is at most 500 characters, got 501$"),
    ('[cues]\nThanks = "Спасибо."\n', r"ru\.toml:2: cues\.Thanks: a cue is snake_case"),
    (f'[cues]\n{"t" * 65} = "x"\n', r'ru\.toml:2: cues\."t{37}\.\.\.": a cue is snake_case .* at most 64 characters$'),
    ('[cues]\ntie.by = "Seats"\ntie.x = "x"\n', r"ru\.toml:2: cues\.tie\.by: 'Seats' is not an argument name"),
    (f'[cues]\noffence_counted.by = "unit"\noffence_counted.{"f" * 65} = "x"\n', r"ru\.toml:3: .*a variant's name is at most 64 characters$"),
    (f'[teams]\nred = "{"К" * 101}"\n[cues]\n', r"ru\.toml:2: teams\.red: a team's name is at most 100 characters$"),
    (f'[cues]\nthanks = "{{{"x" * 400}}}"\n', r"ru\.toml:2: cues\.thanks: \{x{37}\.\.\.\}: unknown placeholder 'x{37}\.\.\.': cue 'thanks' is given no arguments$"),
    (f'language = "{"x" * 10_000}"\n[cues]\n', r"ru\.toml:1: language: 'x{37}\.\.\.' is not one of ru, en$"),
    ('language = 5\n[cues]\n', r"ru\.toml:1: language: 5 is not one of ru, en$"),
    ('[cues]\nthanks = ' + '[' * 3000 + ']' * 3000 + '\n', r"ru\.toml:2: tables and arrays nested more than 16 deep$"),
    ('[cues]\nthanks = ' + '9' * 5000 + '\n', r"ru\.toml:2: invalid TOML: an integer of more than 4300 digits$"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "message"), BAD)
def test_catalogue_errors_name_file_key_and_line(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(CatalogueError, match=message):
        _load(tmp_path, body)


def test_english_nouns_take_two_forms(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match=r"en\.toml:2: .*en needs 2 noun forms"):
        _load(tmp_path, '[cues]\nvotes_accepted = "{votes|vote|votes|votes}"\n', "en")


def test_a_catalogue_that_is_not_utf8_or_too_large(tmp_path: Path) -> None:
    (tmp_path / "ru.toml").write_bytes('[cues]\nthanks = "Спасибо"\n'.encode()[:-3] + b'"\n')
    with pytest.raises(CatalogueError, match=r"ru\.toml:2: not UTF-8 text: byte 0xd0 at byte 23 "):
        load_catalogue("ru", tmp_path)
    (tmp_path / "ru.toml").write_bytes(b"[cues]\n" + b"#" * (1 << 20))
    with pytest.raises(CatalogueError, match=r"ru\.toml: the file is larger than 1048576 bytes"):
        load_catalogue("ru", tmp_path)


def test_arguments_beyond_what_can_be_said(ru: Catalogue) -> None:
    with pytest.raises(
        CatalogueError, match=r"cues\.vote_question: argument seat is too large to say"
    ):
        ru.text("vote_question", {"seat": 10**400})
    with pytest.raises(CatalogueError, match=r"cues\.vote_question: argument seat is too large"):
        ru.key("vote_question", {"seat": 10**12})
    with pytest.raises(CatalogueError, match=r"argument seat='9{37}\.\.\.' is too large to say"):
        ru.text("vote_question", {"seat": "9" * 100})
    with pytest.raises(CatalogueError, match=r"argument nominees is longer than 200 characters$"):
        ru.text("voting_begins", {"nominees": ",".join(["1"] * 200)})
    assert "триллион" not in ru.text("vote_question", {"seat": 999_999_999_999})


def test_missing_catalogue(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match=r"xx\.toml: no such phrase catalogue"):
        load_catalogue("xx", tmp_path)


def test_unknown_cue_names_the_cue_and_the_file(ru: Catalogue) -> None:
    with pytest.raises(KeyError) as caught:
        ru.text("no_such_cue", {})
    assert (
        str(caught.value) == f"{ru.source}: no phrase for cue 'no_such_cue' (add cues.no_such_cue)"
    )
    with pytest.raises(KeyError, match="no_such_cue"):
        ru.key("no_such_cue", {})


def test_missing_argument_names_the_cue_and_the_argument(ru: Catalogue) -> None:
    with pytest.raises(MissingArgument) as caught:
        ru.text("vote_question", {"votes": 3})
    message = str(caught.value)
    assert re.match(
        r".*ru\.toml:\d+: cues\.vote_question: cue 'vote_question' needs argument 'seat'", message
    )
    with pytest.raises(KeyError, match="'unit'"):
        ru.text("offence_counted", {"seat": 3, "count": 3})
    with pytest.raises(KeyError, match="'seat'"):
        ru.key("vote_question", {})


def test_a_word_where_a_number_belongs(ru: Catalogue) -> None:
    assert ru.text("vote_question", {"seat": "3"}) == ru.text("vote_question", {"seat": 3})
    with pytest.raises(
        CatalogueError, match=r"cues\.time_warning: argument seconds='ten' is not a number"
    ):
        ru.text("time_warning", {"seconds": "ten"})


def test_a_value_without_a_variant(tmp_path: Path) -> None:
    cat = _load(tmp_path, '[cues]\n\noffence_counted.by = "unit"\noffence_counted.foul = "фол"\n')
    assert cat.text("offence_counted", {"unit": "foul"}) == "фол"
    with pytest.raises(
        CatalogueError, match=r"ru\.toml:4: cues\.offence_counted: no phrase for unit='remark'"
    ):
        cat.text("offence_counted", {"unit": "remark"})


def test_the_shipped_folder() -> None:
    assert set(LANGS) <= {path.stem for path in VOICES_DIR.glob("*.toml")}
