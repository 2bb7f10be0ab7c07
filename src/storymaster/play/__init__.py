"""The play-by-post table's domain: campaigns, scenes, posts, turns and the roll log.

Pure: no I/O, no framework, no clock (``now`` is passed in), randomness only
from the scene's committed seed. Every change is a :class:`~.log.Draft` a
command returns; the store seals drafts into a hash-chained log that only
grows; state is a fold over that log; :mod:`.views` decides what each reader
sees; :mod:`.verify` checks an exported log offline.
"""

from .campaign import CampaignState, fold_campaign
from .errors import Conflict, Forbidden, Invalid, NotFound, TableError, Unauthorized
from .log import Draft, Entry, seal
from .scene import SceneState, fold_scene
from .verify import verify_export

__all__ = [
    "CampaignState",
    "Conflict",
    "Draft",
    "Entry",
    "Forbidden",
    "Invalid",
    "NotFound",
    "SceneState",
    "TableError",
    "Unauthorized",
    "fold_campaign",
    "fold_scene",
    "seal",
    "verify_export",
]
