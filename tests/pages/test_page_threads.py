"""Page handlers do their work in the thread pool: while one is busy, the event loop answers others."""

from __future__ import annotations

import threading

from storymaster.web.routers import campaigns as campaigns_api


def test_a_busy_page_does_not_hold_the_event_loop(table, monkeypatch):
    entered, release = threading.Event(), threading.Event()
    seen: dict[str, object] = {}
    real = campaigns_api.list_mine

    def held(*args, **kwargs):
        entered.set()
        # Held until the health request below has been answered; if the page ran on the event
        # loop, that request could not be answered and this wait would time out.
        seen["health answered meanwhile"] = release.wait(timeout=30)
        return real(*args, **kwargs)

    monkeypatch.setattr(campaigns_api, "list_mine", held)
    page = threading.Thread(target=lambda: seen.setdefault("page", table.alice.get("/campaigns")))
    page.start()
    assert entered.wait(timeout=30), "the page handler never started"
    health = table.alice.get("/api/health")  # same client, same event loop as the held page
    release.set()
    page.join(timeout=60)
    assert health.status_code == 200
    assert seen["health answered meanwhile"] is True
    assert seen["page"].status_code == 200 and "<html" in seen["page"].text.lower()
