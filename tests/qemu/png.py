# SPDX-License-Identifier: GPL-2.0-only
"""Decode a PNG in pure Python (zlib only), enough to read pixels of what
rsvg-convert writes: 8-bit grey, grey+alpha, RGB or RGBA, not interlaced,
with any of the five row filters."""
import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}     # colour type -> bytes per pixel


class Image:
    def __init__(self, width, height, bpp, rows):
        self.width, self.height, self.bpp, self.rows = width, height, bpp, rows

    def pixel(self, x, y):
        """(r, g, b) at integer pixel (x, y)."""
        row, i = self.rows[int(y)], int(x) * self.bpp
        if self.bpp <= 2:
            return (row[i],) * 3
        return tuple(row[i:i + 3])


def chunks(data):
    if data[:8] != SIGNATURE:
        raise ValueError("not a PNG")
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def decode(data):
    idat = b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in CHANNELS or interlace:
                raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d"
                                 % (depth, ctype, interlace))
        elif kind == b"IDAT":
            idat += body
    bpp = CHANNELS[ctype]
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), prev, bpp)
        rows.append(prev)
    return Image(width, height, bpp, rows)


def read(path):
    with open(path, "rb") as f:
        return decode(f.read())


def unfilter(kind, cur, prev, bpp):
    """Undo one row's filter (PNG spec 9.2): each byte was stored as the
    difference from a predictor built from the left (a), up (b) and
    up-left (c) bytes."""
    n = len(cur)
    if kind == 1:
        for i in range(bpp, n):
            cur[i] = (cur[i] + cur[i - bpp]) & 255
    elif kind == 2:
        cur = bytearray((x + y) & 255 for x, y in zip(cur, prev))
    elif kind == 3:
        for i in range(n):
            left = cur[i - bpp] if i >= bpp else 0
            cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
    elif kind == 4:
        for i in range(n):
            a = cur[i - bpp] if i >= bpp else 0
            c = prev[i - bpp] if i >= bpp else 0
            cur[i] = (cur[i] + paeth(a, prev[i], c)) & 255
    elif kind != 0:
        raise ValueError("bad PNG filter type %d" % kind)
    return cur


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c
