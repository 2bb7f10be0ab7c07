"""The app for real server processes in tests (uvicorn --factory): the test rule system installed in every worker."""

from __future__ import annotations

from play.kit import install_tally


def app():
    install_tally()
    from storymaster.web.factory import from_env

    return from_env()
