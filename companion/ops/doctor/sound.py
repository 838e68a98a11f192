"""The doctor's checks of the sound: the speaker (a test phrase played for
real through the configured device, by the voice's own speaker) and the
microphone (the configured input opened by the ears' own capture, and its
level over a second).

The probes (``SoundProbes``) touch the sound cards; tests give fakes that
play a machine without PortAudio, a device that does not exist, a stream
that takes no sound, a silent or an overloaded microphone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ...config.values import Config
from ...voice.audio import Clip
from .result import Result, Words, decimal, say

#: how long the test phrase may take to be handed to the device, beyond its length
PLAY_MARGIN_S = 5.0
#: seconds of the microphone measured
LISTEN_S = 1.0
#: the first blocks from PulseAudio came after 1-2 s here (stack notes)
LISTEN_TIMEOUT_S = 6.0
#: below this the input is digital silence or a muted card: a room is never
#: this quiet (its noise sits around -60 to -50 dBFS even at night)
SILENT_DB = -80.0
#: a sample this near full scale: the input is overloaded (clipping)
CLIPPED = 0.99

#: what the speaker says, in the voice's language
SOUND_CHECK = {"ru": "Проверка звука. Раз, два, три.", "en": "Sound check. One, two, three."}

WORDS: Words = {
    "ru": {
        "captions": "Динамик: не используется, только субтитры ([voice] captions_only = true)",
        "no_portaudio": "Динамик: нет PortAudio ({error}): игра пойдёт с субтитрами",
        "fix_portaudio": "sudo apt install libportaudio2 (./run ставит его сам)",
        "no_output": "Динамик: звука нет ({error}): игра пойдёт с субтитрами",
        "fix_named": "проверьте [voice] device = {device!r}; выходы здесь: {outputs} (python3 -m sounddevice)",
        "fix_default": 'подключите динамик (USB или разъём 3,5 мм); python3 -m sounddevice должен показать выход; под PulseAudio или PipeWire: [voice] device = "pulse"',
        "none_here": "ни одного",
        "stalled": "Динамик: {device} открылся, но не взял звук за {seconds} с",
        "fix_stalled": "устройство держит другая программа? Закройте её или выберите другое: [voice] device",
        "opened": "Динамик: {device}, {rate} Гц: открывается; тестовая фраза не звучала (--no-sound)",
        "played": "Динамик: {device}, {rate} Гц: прозвучало «{what}»",
        "tone": "тон 660 Гц (голос не готов)",
        "mic_off": "Микрофон: выключен ([microphone] listen = false)",
        "default_input": "системный вход",
        "mic_bad": "Микрофон: {device} не открывается: {error}",
        "fix_mic_named": "проверьте [microphone] device = {device!r}; входы здесь: {inputs} (python3 -m sounddevice); или listen = false",
        "fix_mic_default": "подключите микрофон; python3 -m sounddevice должен показать вход; или [microphone] listen = false",
        "mic_silent": "Микрофон: {device}: только тишина ({level} dBFS за {seconds} с)",
        "fix_silent": "микрофон выключен или без звука? Поднимите уровень записи (alsamixer, клавиша F4)",
        "mic_clipped": "Микрофон: {device}: перегружен (пики в 0 dBFS; уровень {level} dBFS)",
        "fix_clipped": "убавьте усиление входа (ручка на карте или alsamixer, клавиша F4)",
        "mic_ok": "Микрофон: {device}, уровень {level} dBFS за {seconds} с",
        "channels": "по каналам {levels}",
    },
    "en": {
        "captions": "Speaker: not used, captions only ([voice] captions_only = true)",
        "no_portaudio": "Speaker: no PortAudio ({error}): the game will run with captions",
        "fix_portaudio": "sudo apt install libportaudio2 (./run installs it)",
        "no_output": "Speaker: no sound ({error}): the game will run with captions",
        "fix_named": "check [voice] device = {device!r}; outputs here: {outputs} (python3 -m sounddevice)",
        "fix_default": 'plug in a speaker (USB or the 3.5 mm jack); python3 -m sounddevice must list an output; under PulseAudio or PipeWire: [voice] device = "pulse"',
        "none_here": "none",
        "stalled": "Speaker: {device} opened but took no sound in {seconds} s",
        "fix_stalled": "another program holding the device? Close it or choose another: [voice] device",
        "opened": "Speaker: {device}, {rate} Hz: opens; no test phrase played (--no-sound)",
        "played": "Speaker: {device}, {rate} Hz: played «{what}»",
        "tone": "a 660 Hz tone (the voice is not ready)",
        "mic_off": "Microphone: off ([microphone] listen = false)",
        "default_input": "the system's input",
        "mic_bad": "Microphone: {device} does not open: {error}",
        "fix_mic_named": "check [microphone] device = {device!r}; inputs here: {inputs} (python3 -m sounddevice); or listen = false",
        "fix_mic_default": "plug in a microphone; python3 -m sounddevice must list an input; or [microphone] listen = false",
        "mic_silent": "Microphone: {device}: only silence ({level} dBFS over {seconds} s)",
        "fix_silent": "muted or switched off? Raise the capture level (alsamixer, key F4)",
        "mic_clipped": "Microphone: {device}: overloaded (peaks at 0 dBFS; level {level} dBFS)",
        "fix_clipped": "lower the input gain (the card's knob, or alsamixer, key F4)",
        "mic_ok": "Microphone: {device}, level {level} dBFS over {seconds} s",
        "channels": "by channel {levels}",
    },
}


class NoPortAudio(OSError):
    """sounddevice cannot load PortAudio (``libportaudio2`` missing)."""


@dataclass(frozen=True, slots=True)
class OutputReport:
    device: str  # the device's name and host API, as PortAudio gives them
    rate: int  # the stream's sample rate
    played: bool | None  # None: nothing asked; False: the device took nothing in time


Samples = npt.NDArray[np.float32]


def _sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as error:  # the module loads libportaudio at import
        raise NoPortAudio(str(error)) from None
    return sounddevice


def _device(spec: str | None) -> str | int | None:
    return int(spec) if spec is not None and spec.isdigit() else spec


def _describe(sounddevice: Any, device: str | int | None, kind: str) -> str:
    try:
        info = sounddevice.query_devices(device, kind)
        api = sounddevice.query_hostapis(info["hostapi"])["name"]
    except Exception:  # the stream opened all the same: name it as the config does
        return str(device) if device is not None else "default"
    return f"{info['name']} ({api})"


def _play(device: str | None, latency: str, clip: Clip | None, timeout: float) -> OutputReport:
    """Open the configured output as the table does (the voice's speaker),
    play ``clip`` whole (None: nothing) and close it."""
    from ...voice.speaker import SoundDeviceSpeaker

    sounddevice = _sounddevice()
    spec = _device(device)
    try:
        speaker = SoundDeviceSpeaker(spec, latency="low" if latency == "low" else None)
    except (ValueError, sounddevice.PortAudioError) as error:
        raise OSError((str(error).splitlines() or [""])[0] or type(error).__name__) from None
    played: bool | None = None
    try:
        if clip is not None:
            speaker.play(clip, "doctor")
            played = speaker.wait_idle(clip.duration + timeout)
    finally:
        speaker.close()  # PortAudio plays out what it was handed before it stops
    return OutputReport(_describe(sounddevice, spec, "output"), speaker.format.rate, played)


def _devices(kind: str) -> list[str]:
    try:
        sounddevice = _sounddevice()
        found = sounddevice.query_devices()
    except Exception:
        return []
    channels = f"max_{kind}_channels"
    return [f"{d['index']} {d['name']}" for d in found if d.get(channels, 0) > 0]


def _test_cue(config: Config) -> tuple[Clip | None, str]:
    """The sound check phrase in the table's voice (rendered into the
    voice's cache like any phrase), or a tone when the voice cannot speak."""
    from ...voice.audio import tone
    from ...voice.tts import TtsRenderer, TtsVoice, WavCache

    text = SOUND_CHECK.get(config.lang, SOUND_CHECK["ru"])
    try:
        voice = TtsVoice(config.voice.voice or config.lang, config.voice.rate)
        with TtsRenderer() as renderer:
            return WavCache(renderer=renderer).clip(text, voice).without_lead_in(), text
    except Exception:  # the voice's check says why; the speaker is checked all the same
        return tone(660, 0.6), ""


def _capture(
    device: str | None, channels: int, seconds: float, timeout: float
) -> tuple[Samples, int]:
    """``seconds`` of the configured input, through the ears' own listener,
    and its sample rate."""
    import threading

    from ...ears.hearing import EarsSettings, open_listener

    listener = open_listener(EarsSettings(device=device, channels=channels))
    wanted = int(seconds * listener.rate)
    blocks: list[Samples] = []
    got = 0
    stopping = threading.Event()

    def heard(block: Any) -> None:
        nonlocal got
        blocks.append(block.samples)
        got += len(block.samples)
        if got >= wanted:
            stopping.set()

    timer = threading.Timer(timeout, stopping.set)  # a stream that sends nothing
    timer.start()
    try:
        listener.run(heard, stopping)
    finally:
        timer.cancel()
    if got == 0:
        raise OSError(f"no sound came in {timeout:g} s")
    samples: Samples = np.concatenate(blocks)[:wanted]
    return samples.reshape(len(samples), -1), listener.rate


@dataclass(frozen=True, slots=True)
class SoundProbes:
    """What the sound checks do to the machine's sound cards."""

    test_cue: Callable[[Config], tuple[Clip | None, str]] = _test_cue
    play: Callable[[str | None, str, Clip | None, float], OutputReport] = _play
    outputs: Callable[[], list[str]] = lambda: _devices("output")
    capture: Callable[[str | None, int, float, float], tuple[Samples, int]] = _capture
    inputs: Callable[[], list[str]] = lambda: _devices("input")


def check_speaker(config: Config, probes: SoundProbes, lang: str, sound: bool = True) -> Result:
    """The configured output opened as the table opens it and, unless
    ``sound`` is False, a test phrase played through it."""
    voice = config.voice
    if voice.captions_only:
        return Result("speaker", "ok", say(WORDS, lang, "captions"))
    clip, what = probes.test_cue(config) if sound else (None, "")
    try:
        report = probes.play(voice.device, voice.latency, clip, PLAY_MARGIN_S)
    except NoPortAudio as error:
        return Result(
            "speaker",
            "failure",
            say(WORDS, lang, "no_portaudio", error=_first(error)),
            say(WORDS, lang, "fix_portaudio"),
        )
    except OSError as error:
        if voice.device is not None:
            outputs = ", ".join(probes.outputs()) or say(WORDS, lang, "none_here")
            fix = say(WORDS, lang, "fix_named", device=voice.device, outputs=outputs)
        else:
            fix = say(WORDS, lang, "fix_default")
        return Result("speaker", "failure", say(WORDS, lang, "no_output", error=_first(error)), fix)
    if report.played is False:
        seconds = decimal((clip.duration if clip else 0.0) + PLAY_MARGIN_S, lang, 0)
        line = say(WORDS, lang, "stalled", device=report.device, seconds=seconds)
        return Result("speaker", "failure", line, say(WORDS, lang, "fix_stalled"))
    if report.played is None:
        return Result(
            "speaker", "ok", say(WORDS, lang, "opened", device=report.device, rate=report.rate)
        )
    what = what or say(WORDS, lang, "tone")
    line = say(WORDS, lang, "played", device=report.device, rate=report.rate, what=what)
    return Result("speaker", "ok", line)


def check_microphone(config: Config, probes: SoundProbes, lang: str) -> Result:
    """The configured input opened as the ears open it, its level over a second."""
    mic = config.microphone
    if not mic.listen:
        return Result("microphone", "ok", say(WORDS, lang, "mic_off"))
    device = mic.device if mic.device is not None else say(WORDS, lang, "default_input")
    try:
        samples, rate = probes.capture(mic.device, mic.channels, LISTEN_S, LISTEN_TIMEOUT_S)
    except OSError as error:
        if mic.device is not None:
            inputs = ", ".join(probes.inputs()) or say(WORDS, lang, "none_here")
            fix = say(WORDS, lang, "fix_mic_named", device=mic.device, inputs=inputs)
        else:
            fix = say(WORDS, lang, "fix_mic_default")
        line = say(WORDS, lang, "mic_bad", device=device, error=_first(error))
        return Result("microphone", "failure", line, fix)
    levels = channel_levels(samples)
    level = decimal(max(levels), lang, 0)
    seconds = decimal(len(samples) / rate, lang, 1)
    if max(levels) < SILENT_DB:
        line = say(WORDS, lang, "mic_silent", device=device, level=level, seconds=seconds)
        return Result("microphone", "warning", line, say(WORDS, lang, "fix_silent"))
    if len(samples) and float(np.max(np.abs(samples))) >= CLIPPED:
        line = say(WORDS, lang, "mic_clipped", device=device, level=level)
        return Result("microphone", "warning", line, say(WORDS, lang, "fix_clipped"))
    line = say(WORDS, lang, "mic_ok", device=device, level=level, seconds=seconds)
    if len(levels) > 1:
        each = ", ".join(decimal(x, lang, 0) for x in levels)
        line += f" ({say(WORDS, lang, 'channels', levels=each)})"
    return Result("microphone", "ok", line)


def channel_levels(samples: Samples) -> list[float]:
    """Each channel's level in dBFS (its mean square, as the ears measure an
    utterance: ``ears.detect.level_db``); -120 for no sound at all."""
    from ...ears.detect import level_db

    if samples.ndim == 1:
        samples = samples[:, None]
    return [max(level_db(samples[:, c]), -120.0) for c in range(samples.shape[1])]


def _first(error: BaseException) -> str:
    return (str(error).splitlines() or [""])[0] or type(error).__name__
