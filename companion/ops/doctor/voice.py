"""The doctor's checks of what the companion says and hears in words: the
voice (espeak-ng renders a phrase of the game to WAV in the configured
voice, by the voice's own renderer; a recorded pack, if any, and how much
of the game it covers) and the vosk model for the forbidden words (found
where ``companion models`` installs it, and loaded).

The probes (``VoiceProbes``) run espeak-ng and vosk; tests give fakes that
play a machine without espeak-ng, a voice it lacks, a model not installed
or broken.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...config.values import Config
from ...ears.models import ModelError, known, model_folder, models_dir
from ...voice.tts import TtsVoice
from .result import Result, Words, decimal, say, size_text

#: the phrase of the game the voice check renders (a numeral in it too)
PHRASE = ("vote_question", {"seat": 3})

WORDS: Words = {
    "ru": {
        "ok": "Голос: {espeak}, {voice}, {rate} слов/мин: «{text}» — {seconds} с ({backend}){pack}",
        "bad_voice": "Голос: {error}",
        "fix_voice": '[voice] voice = "ru" или "ru+f3" (companion voices list покажет голоса)',
        "no_espeak": "Голос: espeak-ng не установлен: игра пойдёт без голоса ({error})",
        "fix_espeak": "sudo apt install espeak-ng (./run ставит его сам)",
        "failed": "Голос: {espeak} не озвучил фразу: {error}",
        "fix_failed": "sudo apt install --reinstall espeak-ng espeak-ng-data; espeak-ng -v {voice} «проверка» должен говорить",
        "silent": "Голос: {espeak} дал тишину вместо «{text}»",
        "pack": "; пакет «{name}»: записано {recorded} из {wanted} фраз, остальные говорит espeak-ng",
        "pack_full": "; пакет «{name}»: записаны все {wanted} фраз",
        "pack_only": "Голос: фразы игры записаны в пакете «{name}» ({wanted}), но {error}: списки номинантов некому сказать",
        "pack_bad": "; пакет «{name}»: не играются {files}",
        "fix_pack_bad": "сохраните их как WAV, 16 бит PCM (docs/voice.md, «Recording a voice pack»)",
        "pack_lang": "; пакет «{name}» на языке {pack_lang}, а стол говорит на {lang}",
        "fix_pack_lang": "[voice] pack: пакет на языке стола, или language в его pack.toml",
        "model_none": "Модель слов: не задана: запрещённые слова не слушаются",
        "model_missing": "Модель слов: {name} не установлена в {folder}",
        "fix_missing": "companion models fetch {name} на машине с сетью, или скопируйте туда папку {archive}",
        "model_unknown": "Модель слов: {error}",
        "fix_unknown": "[microphone] words_model: имя из companion models list или папка модели vosk",
        "model_broken": "Модель слов: {name} не загружается: {error}",
        "fix_broken": "удалите папку {folder} и скачайте снова: companion models fetch ИМЯ",
        "no_vosk": "Модель слов: vosk не установлен ({error})",
        "fix_vosk": "./run ставит его сам; вручную: .venv/bin/pip install vosk",
        "model_ok": "Модель слов: {model} загружается за {seconds} с{off}",
        "model_off": "; микрофон выключен: она не используется",
    },
    "en": {
        "ok": "Voice: {espeak}, {voice}, {rate} words/min: «{text}» in {seconds} s ({backend}){pack}",
        "bad_voice": "Voice: {error}",
        "fix_voice": '[voice] voice = "ru" or "ru+f3" (companion voices list shows the voices)',
        "no_espeak": "Voice: espeak-ng is not installed: the game would have no voice ({error})",
        "fix_espeak": "sudo apt install espeak-ng (./run installs it)",
        "failed": "Voice: {espeak} did not render the phrase: {error}",
        "fix_failed": "sudo apt install --reinstall espeak-ng espeak-ng-data; espeak-ng -v {voice} test must speak",
        "silent": "Voice: {espeak} rendered silence for «{text}»",
        "pack": "; pack «{name}»: {recorded} of {wanted} phrases recorded, espeak-ng says the rest",
        "pack_full": "; pack «{name}»: all {wanted} phrases recorded",
        "pack_only": "Voice: the game's phrases are in pack «{name}» ({wanted}), but {error}: nobody can say the lists of nominees",
        "pack_bad": "; pack «{name}»: cannot play {files}",
        "fix_pack_bad": "save them as WAV, 16-bit PCM (docs/voice.md, «Recording a voice pack»)",
        "pack_lang": "; pack «{name}» is in {pack_lang}, the table speaks {lang}",
        "fix_pack_lang": "[voice] pack: a pack in the table's language, or language in its pack.toml",
        "model_none": "Words model: not set: forbidden words are not listened for",
        "model_missing": "Words model: {name} is not installed in {folder}",
        "fix_missing": "companion models fetch {name} on a connected machine, or copy its folder {archive} there",
        "model_unknown": "Words model: {error}",
        "fix_unknown": "[microphone] words_model: a name from companion models list, or a vosk model's folder",
        "model_broken": "Words model: {name} does not load: {error}",
        "fix_broken": "remove the folder {folder} and fetch it again: companion models fetch NAME",
        "no_vosk": "Words model: vosk is not installed ({error})",
        "fix_vosk": "./run installs it; by hand: .venv/bin/pip install vosk",
        "model_ok": "Words model: {model} loads in {seconds} s{off}",
        "model_off": "; the microphone is off: it is not used",
    },
}


@dataclass(frozen=True, slots=True)
class Rendered:
    backend: str  # "pyttsx3" or "espeak-ng" (the command)
    seconds: float  # of speech
    silent: bool


@dataclass(frozen=True, slots=True)
class PackReport:
    name: str
    language: str
    recorded: int  # phrases of the game the pack has a playable file for
    wanted: int  # phrases a game at the configured table can need
    unplayable: tuple[str, ...] = ()  # its files that cannot be played


def _espeak_version() -> str | None:
    binary = shutil.which("espeak-ng") or shutil.which("espeak")
    if binary is None:
        return None
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "espeak-ng"
    # "eSpeak NG text-to-speech: 1.51  Data at: ..."
    words = out.stdout.split(":", 1)[-1].split()
    return f"espeak-ng {words[0]}" if words else "espeak-ng"


def _render(text: str, voice: TtsVoice) -> Rendered:
    """``text`` rendered to a WAV file of its own by the voice's renderer
    (pyttsx3, or the espeak-ng command when that fails), then read back."""
    from ...voice.audio import is_silent, read_wav
    from ...voice.tts import TtsRenderer

    with tempfile.TemporaryDirectory(prefix="companion-doctor-") as folder:
        with TtsRenderer() as renderer:
            path = renderer.render(text, voice, Path(folder) / "phrase.wav")
            backend = renderer.backend
        clip = read_wav(path)
    return Rendered(backend, clip.duration, is_silent(clip))


def _phrase(config: Config) -> str:
    from ...voice.catalogue_load import load_catalogue

    cue, args = PHRASE
    return load_catalogue(config.lang).text(cue, args)


def _pack(config: Config) -> PackReport | None:
    """How much of a game at the configured table the club's pack covers."""
    if config.voice.pack is None:
        return None
    from ...config.rulesets import load_ruleset
    from ...voice.catalogue_load import load_catalogue
    from ...voice.pack import VoicePack

    pack = VoicePack(config.voice.pack)
    catalogue = load_catalogue(config.lang)
    rules = load_ruleset(config.table.ruleset)
    wanted = {
        catalogue.key(cue, args) for cue, args, _ in catalogue.variants(rules, config.table.seats)
    }
    playable = {key for key in pack.keys if pack.clip_for(key) is not None}
    unplayable = tuple(sorted(pack.files[key].name for key in pack.keys - playable))
    return PackReport(
        pack.info.name, pack.info.language, len(wanted & playable), len(wanted), unplayable
    )


def _load_model(folder: Path) -> float:
    """Load the vosk model as the ears do; the seconds it took."""
    from ...ears.words import load_model

    started = time.monotonic()
    load_model(folder)
    return time.monotonic() - started


def _folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


@dataclass(frozen=True, slots=True)
class VoiceProbes:
    espeak: Callable[[], str | None] = _espeak_version
    phrase: Callable[[Config], str] = _phrase
    render: Callable[[str, TtsVoice], Rendered] = _render
    pack: Callable[[Config], PackReport | None] = _pack
    model_folder: Callable[[str], Path] = model_folder
    models_dir: Callable[[], Path] = models_dir
    load_model: Callable[[Path], float] = _load_model
    folder_bytes: Callable[[Path], int] = _folder_bytes


def check_voice(config: Config, probes: VoiceProbes, lang: str) -> Result:
    """espeak-ng renders a phrase of the game in the configured voice; the
    club's pack, if any, and how much of a game it covers."""
    espeak = probes.espeak()
    pack = probes.pack(config)
    try:
        voice = TtsVoice(config.voice.voice or config.lang, config.voice.rate)
        text = probes.phrase(config)
        rendered = probes.render(text, voice)
    except ValueError as error:  # a voice or variant espeak-ng does not have
        return Result(
            "voice",
            "failure",
            say(WORDS, lang, "bad_voice", error=error),
            say(WORDS, lang, "fix_voice"),
        )
    except OSError as error:  # the renderer's RenderError; no espeak-ng at all
        reason = (str(error).splitlines() or [""])[0] or type(error).__name__
        if pack is not None and pack.wanted and pack.recorded == pack.wanted:
            line = say(WORDS, lang, "pack_only", name=pack.name, wanted=pack.wanted, error=reason)
            return Result("voice", "warning", line, say(WORDS, lang, "fix_espeak"))
        if espeak is None:
            line = say(WORDS, lang, "no_espeak", error=reason)
            return Result("voice", "failure", line, say(WORDS, lang, "fix_espeak"))
        line = say(WORDS, lang, "failed", espeak=espeak, error=reason)
        return Result("voice", "failure", line, say(WORDS, lang, "fix_failed", voice=voice.voice))
    espeak = espeak or "espeak-ng"
    if rendered.silent:
        line = say(WORDS, lang, "silent", espeak=espeak, text=text)
        return Result("voice", "failure", line, say(WORDS, lang, "fix_failed", voice=voice.voice))
    status, fix, about_pack = "ok", "", ""
    if pack is not None:
        key = "pack_full" if pack.recorded == pack.wanted else "pack"
        about_pack = say(
            WORDS, lang, key, name=pack.name, recorded=pack.recorded, wanted=pack.wanted
        )
        if pack.unplayable:
            files = ", ".join(pack.unplayable[:3]) + ("…" if len(pack.unplayable) > 3 else "")
            about_pack += say(WORDS, lang, "pack_bad", name=pack.name, files=files)
            status, fix = "warning", say(WORDS, lang, "fix_pack_bad")
        elif pack.language != config.lang:
            about_pack += say(
                WORDS, lang, "pack_lang", name=pack.name, pack_lang=pack.language, lang=config.lang
            )
            status, fix = "warning", say(WORDS, lang, "fix_pack_lang")
    line = say(
        WORDS,
        lang,
        "ok",
        espeak=espeak,
        voice=voice.voice,
        rate=voice.rate,
        text=text,
        seconds=decimal(rendered.seconds, lang),
        backend=rendered.backend,
        pack=about_pack,
    )
    return Result("voice", status, line, fix)  # type: ignore[arg-type]  # "ok" or "warning"


def check_words_model(config: Config, probes: VoiceProbes, lang: str) -> Result:
    """The vosk model the config names: installed where ``companion models``
    puts it (or the folder named), and loadable."""
    name = config.microphone.words_model
    if not name:
        return Result("words_model", "ok", say(WORDS, lang, "model_none"))
    try:
        folder = probes.model_folder(name)
    except ModelError as error:
        entry = known(name)
        if entry is None:  # a folder that is not there
            line = say(WORDS, lang, "model_unknown", error=error)
            return Result("words_model", "failure", line, say(WORDS, lang, "fix_unknown"))
        line = say(WORDS, lang, "model_missing", name=name, folder=probes.models_dir())
        fix = say(WORDS, lang, "fix_missing", name=name, archive=entry.archive)
        return Result("words_model", "failure", line, fix)
    try:
        seconds = probes.load_model(folder)
    except ImportError as error:
        line = say(WORDS, lang, "no_vosk", error=error)
        return Result("words_model", "failure", line, say(WORDS, lang, "fix_vosk"))
    except ModelError as error:
        line = say(WORDS, lang, "model_broken", name=name, error=error)
        return Result("words_model", "failure", line, say(WORDS, lang, "fix_broken", folder=folder))
    off = "" if config.microphone.listen else say(WORDS, lang, "model_off")
    size = size_text(probes.folder_bytes(folder), lang)
    # a model's own folder names itself; a known name is told where it is installed
    own_folder = Path(name).expanduser() == folder
    model = f"{name} ({size})" if own_folder else f"{name} ({folder}, {size})"
    line = say(WORDS, lang, "model_ok", model=model, seconds=decimal(seconds, lang), off=off)
    return Result("words_model", "ok", line)
