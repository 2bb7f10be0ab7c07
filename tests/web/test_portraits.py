"""Portraits (issue 18 item 10): uploads decoded and checked by Pillow, stored resized as WebP in the
database (SQLite and PostgreSQL), shown to members only, changed only by the character's player or the GM."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image
from web.apikit import Table


def _png(size=(600, 400), color=(200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _huge_header_png(w: int = 20_000, h: int = 20_000) -> bytes:
    """A few hundred bytes claiming 400 million pixels: refused before anything is decoded."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + _chunk(b"IEND", b"")
    )


def _url(t: Table, char: int) -> str:
    return f"/api/campaigns/{t.campaign}/characters/{char}/portrait"


def _put(t: Table, who, char: int, data: bytes):
    return t.client.put(_url(t, char), content=data, headers={**who.h, "Content-Type": "application/octet-stream"})


def test_an_upload_is_stored_resized_as_webp_and_shown_to_members(table: Table) -> None:
    t = table
    jpeg = io.BytesIO()
    exif = Image.Exif()
    exif[0x010E] = "SECRET-EXIF-TEXT"  # ImageDescription: must not survive into the stored portrait
    Image.new("RGB", (900, 500), (10, 120, 40)).save(jpeg, format="JPEG", exif=exif.tobytes())
    r = _put(t, t.p1, t.c1, jpeg.getvalue())
    assert r.status_code == 200, r.text
    assert r.json()["media_type"] == "image/webp" and (r.json()["width"], r.json()["height"]) == (256, 256)
    for who in (t.gm, t.p1, t.p2, t.obs):
        got = t.client.get(_url(t, t.c1), headers=who.h)
        assert got.status_code == 200 and got.headers["content-type"] == "image/webp"
        img = Image.open(io.BytesIO(got.content))
        assert img.format == "WEBP" and img.size == (256, 256)
        assert b"SECRET-EXIF-TEXT" not in got.content
        r304 = t.client.get(_url(t, t.c1), headers={**who.h, "If-None-Match": got.headers["etag"]})
        assert r304.status_code == 304
    assert t.client.get(_url(t, t.c1), headers=t.outsider.h).status_code == 403
    # a small image is not blown up; it is cropped square
    r = _put(t, t.gm, t.c2, _png((100, 40)))
    assert r.status_code == 200 and (r.json()["width"], r.json()["height"]) == (40, 40)


def test_bad_uploads_are_refused_with_the_reason(table: Table) -> None:
    t = table
    cases = [
        (b"", "empty"),
        (b"#!/bin/sh\necho not an image\n", "not an image"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "not an image"),
        (_png()[:300], "could not be read"),
        (_huge_header_png(), "at most 40,000,000 pixels"),
        (_png((8, 8)), "at least 16"),
    ]
    for data, says in cases:
        r = _put(t, t.p1, t.c1, data)
        assert r.status_code == 422, (says, r.status_code, r.text)
        assert says in r.json()["detail"], (says, r.json())
    assert t.client.get(_url(t, t.c1), headers=t.p1.h).status_code == 404  # nothing was stored
    too_big = t.client.app.state.settings.max_upload + 1
    r = _put(t, t.p1, t.c1, b"\x00" * too_big)
    assert r.status_code == 413


def test_only_the_player_or_the_gm_changes_a_portrait(table: Table) -> None:
    t = table
    for who in (t.p2, t.obs, t.outsider):
        assert _put(t, who, t.c1, _png()).status_code == 403
    assert _put(t, t.p1, t.c1, _png()).status_code == 200
    assert t.client.delete(_url(t, t.c1), headers=t.p2.h).status_code == 403
    assert t.client.delete(_url(t, t.c1), headers=t.gm.h).status_code == 204
    assert t.client.get(_url(t, t.c1), headers=t.p1.h).status_code == 404
