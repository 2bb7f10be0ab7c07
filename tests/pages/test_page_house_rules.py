"""The GM's house rules on the campaign page: one control per option of the system's house-rules model, holding
the campaign's rules (the book's where the GM changed nothing); no YAML box."""

from __future__ import annotations

import re

from pages.pagekit import build_table, form_values


def _form(page: str) -> str:
    found = re.search(r'<form method="post" action="[^"]+/house-rules" class="house-rules">.*?</form>', page, re.S)
    assert found is not None, "no house-rules form"
    return found.group(0)


def test_house_rules_are_controls_and_a_change_changes_only_that_option(app) -> None:
    t = build_table(app, "blyss")
    url = f"/campaigns/{t.cid}"

    def kept() -> dict:
        r = t.gm.client.get(f"/api/campaigns/{t.cid}")
        assert r.status_code == 200, r.text
        return r.json()["house_rules"]

    before = kept()
    page = t.gm.get(url).text
    form = _form(page)
    assert 'name="house_rules"' not in page and "<textarea" not in form
    # the book's rules as written: Fatigue's ranks from every statistic rolled; 100 rounds to a stand-off
    assert re.search(r'name="hr.deprivation_penalty".*?<option selected>per_statistic</option>', form, re.S)
    assert re.search(r'name="hr.max_rounds"[^>]*value="100"', form)
    data = form_values(form)
    data["hr.deprivation_penalty"] = "per_test"
    assert t.gm.post(url + "/house-rules", data).status_code == 303
    assert kept() == {**before, "deprivation_penalty": "per_test"}  # only that option changed
    form = _form(t.gm.get(url).text)
    assert re.search(r'name="hr.deprivation_penalty".*?<option selected>per_test</option>', form, re.S)
    # the table lists only what differs from the book, in words (every other option is the book's)
    shown = t.alice.get(url).text
    assert "<dt>Deprivation penalty</dt><dd>per_test</dd>" in shown and "Max rounds" not in shown
    # a refused value says why and changes nothing
    bad = {**form_values(form), "hr.max_rounds": "lots"}
    r = t.gm.post(url + "/house-rules", bad)
    assert r.status_code == 422 and "max_rounds" in r.text
    assert kept() == {**before, "deprivation_penalty": "per_test"}
    # a list option without JavaScript: "Add" shows the form again with a row, nothing saved yet
    r = t.gm.post(url + "/house-rules", {**form_values(form), "op": "add:free_common_traits"})
    assert r.status_code == 200 and kept() == {**before, "deprivation_penalty": "per_test"}
    form = _form(r.text)
    assert 'name="hr.free_common_traits.0"' in form
    data = {**form_values(form), "hr.free_common_traits.0": "Common"}
    assert t.gm.post(url + "/house-rules", data).status_code == 303
    assert kept() == {**before, "deprivation_penalty": "per_test", "free_common_traits": ["Common"]}
    # back to the book's rule, and the row removed (the reader drops a row ticked for removal or left empty)
    data = {**form_values(_form(t.gm.get(url).text)), "hr.deprivation_penalty": "per_statistic"}
    data["hr.free_common_traits.0"] = ""
    assert t.gm.post(url + "/house-rules", data).status_code == 303
    assert kept() == before
    assert "The rules as written." in t.alice.get(url).text
    # a player sees the house rules, not the form
    assert "hr.max_rounds" not in t.alice.get(url).text
