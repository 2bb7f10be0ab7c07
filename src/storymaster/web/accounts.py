"""Account rules said once: names, passwords, sign-in throttling.

* **Names**: NFKC-normalised and trimmed when stored; compared case-folded (``name_key``), so
  "Alys", "alys" and " alys" are one name. Bidirectional overrides and zero-width characters
  are refused in names and character names (they make one name look like another).
* **Passwords**: at least :data:`MIN_PASSWORD` characters and not on the list of common
  passwords shipped in ``web/data/common-passwords.txt`` (compared case-folded).
* **Throttling** (:class:`Throttle`): after :data:`FREE_FAILURES` failed sign-ins for a name,
  or :data:`FREE_FAILURES_PER_CLIENT` from one client address, each further try must wait
  twice as long as the last (1 s, 2 s, 4 s ... up to 15 minutes) and gets 429 with
  ``Retry-After`` meanwhile. Per worker process, in memory.
* **E-mail addresses** (:func:`email_address`): parsed by email-validator (RFC 5322 syntax, internationalised
  addresses per RFC 6531, the domain's form checked; no DNS lookup, so no request waits on the network) and
  stored in its normalised form; an address receives digests only after the link mailed to it comes back.
"""

from __future__ import annotations

import threading
import unicodedata
from datetime import datetime, timedelta
from functools import cache
from importlib.resources import files

from ..play.errors import TableError

__all__ = [
    "FREE_FAILURES",
    "FREE_FAILURES_PER_CLIENT",
    "MIN_PASSWORD",
    "Throttle",
    "TooManyTries",
    "check_password",
    "clean_name",
    "email_address",
    "name_key",
    "refuse_invisible",
]

MIN_PASSWORD = 8
#: how long a mailed confirmation link works
EMAIL_LINK_HOURS = 48


def email_address(text: str) -> str:
    """The address in its normalised form, or ValueError saying what is wrong with it."""
    from email_validator import EmailNotValidError, validate_email

    try:
        return validate_email(text.strip(), check_deliverability=False).normalized
    except EmailNotValidError as exc:
        raise ValueError(f"not an e-mail address: {exc}") from None


FREE_FAILURES = 5
FREE_FAILURES_PER_CLIENT = 20
MAX_WAIT = timedelta(minutes=15)

#: bidirectional embeddings, overrides and isolates; marks; zero-width characters and the BOM
INVISIBLE = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b\u200c\u200d\u2060\ufeff\u180e"
)


def refuse_invisible(text: str, what: str = "a name") -> str:
    bad = next((ch for ch in text if ch in INVISIBLE), None)
    if bad is not None:
        raise ValueError(f"{what} may not hold U+{ord(bad):04X} (a direction override or zero-width character)")
    return text


def clean_name(text: str) -> str:
    """A name as stored: NFKC-normalised, trimmed, invisible characters refused."""
    return refuse_invisible(unicodedata.normalize("NFKC", text).strip())


def name_key(text: str) -> str:
    """What names are compared by: the cleaned name, case-folded."""
    return clean_name(text).casefold()


@cache
def common_passwords() -> frozenset[str]:
    text = files(__package__).joinpath("data/common-passwords.txt").read_text(encoding="utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines() if line.strip())


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"a password has at least {MIN_PASSWORD} characters")
    if password.strip().casefold() in common_passwords():
        raise ValueError("that password is on the list of the most common passwords: choose another")
    return password


class TooManyTries(TableError):
    code = "too-many-tries"
    status = 429

    def __init__(self, message: str, *, hint: str | None = None, retry_after: int = 1) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class Throttle:
    """Failed sign-ins per name and per client address, with growing waits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, tuple[int, datetime]] = {}

    def _wait(self, key: str, free: int) -> tuple[int, datetime] | None:
        n, last = self._failures.get(key, (0, datetime.min))
        if n < free:
            return None
        return n, last + min(timedelta(seconds=2 ** (n - free)), MAX_WAIT)

    def check(self, name: str, client: str, now: datetime) -> None:
        """Raise :class:`TooManyTries` when either the name or the client must still wait."""
        with self._lock:
            for key, free in ((f"n:{name}", FREE_FAILURES), (f"c:{client}", FREE_FAILURES_PER_CLIENT)):
                wait = self._wait(key, free)
                if wait is not None and now < wait[1]:
                    seconds = max(1, int((wait[1] - now).total_seconds() + 0.999))
                    raise TooManyTries(
                        f"too many failed sign-ins; try again in {seconds} s",
                        hint="each failed try doubles the wait; a right password resets it",
                        retry_after=seconds,
                    )

    def failed(self, name: str, client: str, now: datetime) -> None:
        with self._lock:
            for key in (f"n:{name}", f"c:{client}"):
                n, last = self._failures.get(key, (0, now))
                if now - last > 2 * MAX_WAIT:  # a quiet half hour forgives the past
                    n = 0
                self._failures[key] = (n + 1, now)

    def succeeded(self, name: str) -> None:
        with self._lock:
            self._failures.pop(f"n:{name}", None)
