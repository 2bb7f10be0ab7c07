"""Characters' portraits: an upload is decoded by Pillow, checked, cropped square and resized, and stored
in the database as WebP (never the uploaded bytes, so no metadata, script or second format rides along).

Checks, each a clear 422: the bytes are a PNG, JPEG, GIF or WebP image (by their content, not their name);
at most :data:`MAX_PIXELS` pixels (a decompression bomb is refused before it is decoded); at least
:data:`MIN_SIDE` pixels a side. The stored portrait is :data:`SIDE` x :data:`SIDE` (smaller images are not
blown up), EXIF rotation applied, the first frame of an animation.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from ..play.errors import Invalid

__all__ = ["FORMATS", "MAX_PIXELS", "MIN_SIDE", "SIDE", "Portrait", "make_portrait"]

FORMATS = ("PNG", "JPEG", "GIF", "WEBP")
MAX_PIXELS = 40_000_000
MIN_SIDE = 16
SIDE = 256


@dataclass(frozen=True, slots=True)
class Portrait:
    data: bytes
    media_type: str
    width: int
    height: int
    sha256: str


def make_portrait(raw: bytes) -> Portrait:
    """The stored portrait made from an upload, or :class:`Invalid` saying what is wrong with it."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not raw:
        raise Invalid("the portrait upload is empty", hint="choose a PNG, JPEG, GIF or WebP image")
    try:
        with Image.open(io.BytesIO(raw), formats=FORMATS) as probe:
            width, height = probe.size
            if width * height > MAX_PIXELS:
                raise Invalid(
                    f"the image is {width} x {height} pixels: at most {MAX_PIXELS:,} pixels",
                    hint="scale it down first",
                )
            if min(width, height) < MIN_SIDE:
                raise Invalid(f"the image is {width} x {height} pixels: at least {MIN_SIDE} a side")
            probe.verify()  # a truncated or corrupt file fails here, before any decoding work
        with Image.open(io.BytesIO(raw), formats=FORMATS) as img:
            img.seek(0)
            img.draft("RGB", (SIDE * 2, SIDE * 2))  # JPEG: decode at a reduced scale when it is large
            pic: Image.Image = ImageOps.exif_transpose(img)
            pic = pic.convert("RGBA") if pic.mode in ("RGBA", "LA", "P", "PA") else pic.convert("RGB")
            side = min(SIDE, pic.width, pic.height)
            pic = ImageOps.fit(pic, (side, side), method=Image.Resampling.LANCZOS)
            out = io.BytesIO()
            pic.save(out, format="WEBP", quality=85, method=4)
    except Invalid:
        raise
    except Image.DecompressionBombError:
        raise Invalid(
            f"the image has far too many pixels: at most {MAX_PIXELS:,} pixels", hint="scale it down first"
        ) from None
    except UnidentifiedImageError as exc:
        raise Invalid(
            "the upload is not an image this table takes", hint=f"a PNG, JPEG, GIF or WebP image ({exc})"
        ) from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise Invalid("the image could not be read (damaged or cut short)", hint=str(exc)[:200]) from None
    data = out.getvalue()
    return Portrait(data, "image/webp", side, side, hashlib.sha256(data).hexdigest())
