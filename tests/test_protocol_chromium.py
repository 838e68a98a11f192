"""The HTML protocol of a real game opened in headless Chromium (the Debian
package scripts/setup.sh installs for the tests): its screenshot is a page
of dark text on white, and its print layout makes a PDF."""

from __future__ import annotations

import re
import shutil
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from protocol_games import chromium, companion, journal_of, render_page

# On Debian the test set-up installs Chromium, so a missing one is a failure there.
_DEBIAN = Path("/etc/debian_version").exists() and shutil.which("apt-get") is not None
needs_chromium = pytest.mark.skipif(
    chromium() is None and not _DEBIAN, reason="no headless Chromium (not Debian)"
)


def decode_png(data: bytes, alpha: bool = False) -> np.ndarray:
    """8-bit RGB or RGBA, not interlaced (what Chromium writes) -> H x W x C
    (C = 3; 4 with `alpha` for an RGBA picture)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (size,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + size]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(idat)
    assert len(raw) == height * (stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    above = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if kind == 0:
            line = row
        elif kind == 2:  # up
            line = (row + above) & 255
        else:  # sub, average, paeth: each byte needs the one bpp to its left
            line = row.copy()
            for x in range(stride):
                left = int(line[x - bpp]) if x >= bpp else 0
                up = int(above[x])
                corner = int(above[x - bpp]) if x >= bpp else 0
                if kind == 1:
                    guess = left
                elif kind == 3:
                    guess = (left + up) >> 1
                else:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + guess) & 255
        out[y] = line
        above = line
    return out.reshape(height, width, bpp)[:, :, : 4 if alpha else 3]


@needs_chromium
def test_the_html_protocol_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "protocol.html"
    run = companion(
        "protocol", journal_of("club-stopped", tmp_path), "--format", "html", "-o", page
    )
    assert run.returncode == 0, run.stderr
    png = tmp_path / "protocol.png"
    shot = render_page(page, png, width=900, height=1200)
    assert shot.returncode == 0, shot.stderr[-2000:]
    pixels = decode_png(png.read_bytes())
    assert pixels.shape == (1200, 900, 3)
    dark = pixels.max(axis=2) < 100  # text and rules
    white = pixels.min(axis=2) > 245
    # a page: mostly white paper, a fair amount of dark text, not a blank or black frame
    assert white.mean() > 0.6, white.mean()
    assert 0.01 < dark.mean() < 0.3, dark.mean()
    # the heading is dark text in the top 60 pixels, left of the middle
    assert dark[:60, : 900 // 2].sum() > 200
    # text all the way down: every 200-pixel band of the page has some
    for top in range(0, 1200, 200):
        assert dark[top : top + 200].sum() > 100, top


@needs_chromium
def test_the_print_layout_makes_a_pdf(tmp_path: Path) -> None:
    page = tmp_path / "protocol.html"
    assert (
        companion(
            "protocol", journal_of("club-full", tmp_path), "--format", "html", "-o", page
        ).returncode
        == 0
    )
    pdf = tmp_path / "protocol.pdf"
    run = render_page(page, pdf, pdf=True)
    assert run.returncode == 0, run.stderr[-2000:]
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", data))
    assert pages >= 2  # a long game does not fit one A4 page
