"""``companion doctor``: checks a club's table and explains, one line each,
what it found and how to fix each failure (docs/doctor.md).

- ``result.py``: a check's result (status, line, fix) and how it is shown;
- ``seats.py``: GPIO and the pin factory, the pin map;
- ``sound.py``: the speaker (a test phrase played) and the microphone (its level);
- ``voice.py``: espeak-ng and a voice pack, the vosk model for forbidden words;
- ``system.py``: free space, real-time priority, the clock's NTP;
- ``command.py``: all of them in order, the command line.

Each check is a function of the config, its probes and the language. The
probes are the only parts that touch the machine, and each is a field of a
small dataclass that tests replace with a fake playing the failing case.
"""
