"""A whole scene through the API, on SQLite and PostgreSQL: posts, rolls, edits, tombstones, reveal, export, verify."""

from __future__ import annotations

import json

from web.apikit import Table


def test_a_scene_from_opening_to_verified_export(table: Table, cli, tmp_path) -> None:
    t = table
    scene = t.get(t.p1, f"/api/scenes/{t.scene}")
    assert len(scene["seed_sha256"]) == 64 and scene["seed"] is None and scene["stream"] == f"scene:{t.scene}"

    gm_post = t.post(t.gm, kind="ic", text="The inn is loud tonight.", rolls=[{"dice": "2d6", "label": "crowd"}])
    assert gm_post["rolls"][0]["total"] == gm_post["rolls"][0]["records"][0]["total"]
    assert "seed" not in gm_post["rolls"][0]["records"][0] and "detail" in gm_post["rolls"][0]["records"][0]

    p = t.post(
        t.p1,
        kind="ic",
        character=t.c1,
        text="Arn shoulders through the crowd.",
        rolls=[{"check": {"type": "skill", "skill": 2, "target": 5}, "label": "push through"}],
    )
    roll = p["rolls"][0]
    assert roll["type"] == "check" and roll["outcome"]["system"] == "tally"
    assert roll["outcome"]["explanation"].endswith(str(roll["records"][0]["total"] + 3))  # skill 2 + house bonus 1
    assert roll["counter"][0] == gm_post["rolls"][0]["counter"][1]  # one stream, no gaps

    # edits keep history; rolls never change
    edited = t.client.patch(
        f"/api/scenes/{t.scene}/posts/{p['id']}", json={"text": "Arn pushes through the crowd."}, headers=t.p1.h
    ).json()
    assert (
        edited["edited"]
        and edited["history"][0]["text"] == "Arn shoulders through the crowd."
        and edited["rolls"] == p["rolls"]
    )

    # deletion is a tombstone: the GM still reads it, others see only that it was deleted (and its rolls)
    oops = t.post(t.p2, kind="ooc", text="brb, pizza", rolls=[{"dice": "d20"}])
    assert t.client.delete(f"/api/scenes/{t.scene}/posts/{oops['id']}", headers=t.p2.h).status_code == 204
    for_gm = t.get(t.gm, f"/api/scenes/{t.scene}/posts/{oops['id']}")
    for_p1 = t.get(t.p1, f"/api/scenes/{t.scene}/posts/{oops['id']}")
    assert for_gm["deleted"] and for_gm["text"] == "brb, pizza"
    assert for_p1["deleted"] and "text" not in for_p1 and for_p1["rolls"][0]["total"] == oops["rolls"][0]["total"]

    # private mechanics to the GM, and a blind roll
    priv = t.post(
        t.p1, kind="private", to=[t.gm.id], text="Arn palms the key.", rolls=[{"dice": "d6", "visibility": "blind"}]
    )
    assert priv["rolls"][0]["hidden"] and "total" not in priv["rolls"][0]  # not even the roller
    assert t.get(t.gm, f"/api/scenes/{t.scene}/posts/{priv['id']}")["rolls"][0]["total"] >= 1
    t.get(t.p2, f"/api/scenes/{t.scene}/posts/{priv['id']}", expect=404)
    assert priv["id"] not in [x["id"] for x in t.get(t.p2, f"/api/scenes/{t.scene}/posts")]

    # an export before closing verifies its chain but cannot replay yet
    before = t.client.get(f"/api/scenes/{t.scene}/export.json", headers=t.p1.h)
    path = tmp_path / "before.json"
    path.write_text(before.text)
    result = cli("verify", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["logs"][0]["seed_revealed"] is False

    closed = t.client.post(f"/api/scenes/{t.scene}/close", headers=t.gm.h).json()
    assert closed["seed"] and closed["closed_at"]
    after = t.get(t.p1, f"/api/scenes/{t.scene}/posts/{priv['id']}", expect=200)
    assert after["rolls"][0]["total"] >= 1 and after["rolls"][0]["records"][0]["seed"] == closed["seed"]

    for who in (t.gm, t.p1, t.p2, t.obs):
        export = t.client.get(f"/api/scenes/{t.scene}/export.json", headers=who.h)
        path = tmp_path / f"{who.name}.json"
        path.write_text(export.text)
        result = cli("verify", str(path), "--json")
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)["logs"][0]
        assert report["seed_revealed"] and report["rolls_replayed"] >= 3

    # tampering is caught, and the first bad entry named
    doc = json.loads((tmp_path / f"{t.gm.name}.json").read_text())
    entry = next(e for e in doc["scenes"][0]["log"] if e["kind"] == "post.created" and e["rolls"])
    entry["rolls"][0]["records"][0]["total"] += 1
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    result = cli("verify", str(tmp_path / "bad.json"))
    assert result.exit_code != 0 and f"entry {entry['seq']}" in result.stderr

    md = t.client.get(f"/api/scenes/{t.scene}/export.md", headers=t.obs.h).text
    assert "The inn is loud tonight." in md and "Arn pushes through the crowd." in md and "palms the key" not in md
    html = t.client.get(f"/api/campaigns/{t.campaign}/export.html", headers=t.p1.h).text
    assert "<h2>At the Inn</h2>" in html and "Arn palms the key." in html


def test_closed_scene_refuses_posts(table: Table) -> None:
    t = table
    t.client.post(f"/api/scenes/{t.scene}/close", headers=t.gm.h)
    r = t.client.post(f"/api/scenes/{t.scene}/posts", json={"kind": "ooc", "text": "hello?"}, headers=t.p1.h)
    assert r.status_code == 409 and r.headers["content-type"] == "application/problem+json"
    assert "closed" in r.json()["detail"]


def test_preview_gives_exact_odds_with_house_rules_and_a_chart(table: Table) -> None:
    t = table
    r = t.client.post(
        f"/api/scenes/{t.scene}/preview", json={"check": {"type": "skill", "skill": 1, "target": 4}}, headers=t.p1.h
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["odds"]["exact"]["p_success"] == "5/6"  # d6 + skill 1 + house bonus 1 >= 4
    assert body["chart_svg"].startswith("<svg") and "success" in body["chart_svg"]
    dice = t.client.post(f"/api/scenes/{t.scene}/preview", json={"dice": "2d6"}, headers=t.obs.h).json()
    assert dice["odds"]["quantities"]["7"] == 6 and dice["odds"]["denominator"] == 36
    before = t.get(t.gm, f"/api/scenes/{t.scene}")["head"]["seq"]
    assert before == 1  # previews roll nothing and write nothing


def test_html_export_escapes_what_players_write(table: Table) -> None:
    t = table
    t.post(t.p1, kind="ic", character=t.c1, text='Arn whispers <script>alert("x")</script> & grins.')
    html = t.client.get(f"/api/scenes/{t.scene}/export.html", headers=t.p2.h).text
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert (
        t.client.get(f"/api/scenes/{t.scene}/export.html", headers=t.p2.h)
        .headers["content-type"]
        .startswith("text/html")
    )
