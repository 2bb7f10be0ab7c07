"""Junk to every page route, signed in and not: always a 4xx (or a page), never a 500."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from storymaster.web.pages import page_routes

JUNK_IDS = ["0", "-1", "abc", "99999999999", "1e3", "%00", "9999"]
JUNK_FORMS = [
    {},
    {
        "kind": "ic",
        "text": "x",
        "character": "1.5",
        "roll_kind": "check",
        "check_type": "ability",
        "check_fields": "!!python/object:os.system x",
    },
    {
        "sheet": "{" * 500,
        "house_rules": "a: [",
        "export": '{"format": "storymaster-table-export", "scenes": [{"log": [1, 2]}]}',
    },
    {
        "action": "start",
        "side1": ["x", "2"],
        "side2": "",
        "to": ["-5"],
        "mode": "sideways",
        "cast": "y",
        "turn_hours": "-1e309",
    },
    {"name": "\x00" * 70, "password": "p" * 2000, "system": "../../etc", "user": "", "role": "king", "text": ""},
]


def _urls(t) -> list[str]:
    urls = []
    for route in page_routes():
        path = route.path
        names = re.findall(r"{(\w+)}", path)
        real = {
            "cid": str(t.cid),
            "sid": str(t.sid),
            "char": str(t.chars["Alis"]),
            "token": t.invite.rsplit("/", 1)[1],
            "pid": "2",
            "iid": "1",
            "tid": "1",
        }
        urls.append((route.methods, re.sub(r"{(\w+)}", lambda m, real=real: real[m.group(1)], path)))
        for junk in JUNK_IDS:
            for name in names:
                urls.append(
                    (
                        route.methods,
                        re.sub(
                            r"{(\w+)}",
                            lambda m, n=name, j=junk, real=real: j if m.group(1) == n else real[m.group(1)],
                            path,
                        ),
                    )
                )
    return urls


def test_no_page_route_answers_500(app, table):
    with TestClient(app, raise_server_exceptions=False) as anon:
        for who, client, csrf in (
            ("gm", table.gm.client, table.gm.csrf),
            ("alice", table.alice.client, table.alice.csrf),
            ("anonymous", anon, ""),
        ):
            for methods, url in _urls(table):
                if "GET" in methods:
                    r = client.get(url, follow_redirects=False)
                    assert r.status_code < 500, (who, "GET", url, r.status_code)
                if "POST" in methods:
                    if url.endswith(("/logout", "/close")):
                        continue  # would end the session or the scene for the rest of the walk
                    for form in JUNK_FORMS:
                        r = client.post(url, data={**form, "csrf": csrf}, follow_redirects=False)
                        assert r.status_code < 500, (who, "POST", url, form, r.status_code, r.text[:300])
                    r = client.post(
                        url,
                        content=b"\xff\xfe--garbage",
                        headers={"content-type": "multipart/form-data; boundary=x"},
                        follow_redirects=False,
                    )
                    assert r.status_code < 500, (who, "POST multipart junk", url, r.status_code)
