"""`verify RECORD` alone reads a record's runs again from the URLs it names (over the Range HTTP
server on the loopback): the files checked against the record's hashes and the record rebuilt,
as with `verify RECORD URL URL`; `--record-only` checks the record alone; a replaced object is
not the run reviewed; an object gone is one line and exit 2."""

from __future__ import annotations

import json
import shutil

import pytest

from evaltui.cli.main import main
from evaltui.core.read.remote import registry
from evaltui.core.verify.pair import HASH_ONLY
from tests.core.read.remote.conftest import BASE, CAND

FROM_URLS = "the runs read again from the URLs the record names"


@pytest.fixture
def signed(http_root, tmp_path, capsys, monkeypatch):
    """A block signed off on two logs served by URL (copies of their own: a test may replace
    one), the record's path and the URLs."""
    server, root = http_root
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")  # every read reaches the server
    folder = root / tmp_path.name
    folder.mkdir()
    shutil.copy(BASE, folder / BASE.name)
    shutil.copy(CAND, folder / CAND.name)
    urls = [f"{server.url}/{tmp_path.name}/{path.name}" for path in (BASE, CAND)]
    prefix = tmp_path / "signoff"
    code = main(["signoff", *urls, "--decision", "block", "--rationale", "remote pair",
                 "--reviewer", "r", "--output", str(prefix)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    # verify runs in a process of its own: nothing the signoff's loads remembered (the blob
    # each URL was read through, its sha256) is there to answer for the objects as they are now
    monkeypatch.setattr(registry, "_seen", {})
    return tmp_path / "signoff.json", urls, folder


def test_verify_alone_rebuilds_the_record_from_the_urls_it_names(signed, http_root, capsys):
    record, urls, _ = signed
    server, _ = http_root
    assert [json.loads(record.read_text())["inputs"][arm]["path"] for arm in
            ("baseline", "candidate")] == urls  # fmt: skip
    before = server.requests
    assert main(["verify", str(record)]) == 0
    out, err = capsys.readouterr()
    assert server.requests > before  # read again from the server
    assert err == f"evaltui: verify: reading the runs from the URLs the record names: " \
                  f"{urls[0]}, {urls[1]}\n"  # fmt: skip
    first = out.splitlines()[0]
    assert first.startswith("evaltui: verified: the record is intact, the files are the ones")
    assert FROM_URLS in first and "files not checked" not in first
    # what `verify RECORD URL URL` says of the same files, and where they came from
    assert main(["verify", str(record), *urls]) == 0
    given = capsys.readouterr().out.splitlines()[0]
    assert first == f"{given} ({FROM_URLS}; --record-only: the record alone)"


def test_record_only_checks_the_record_without_a_request(signed, http_root, capsys):
    record, _, _ = signed
    server, _ = http_root
    before = server.requests
    assert main(["verify", str(record), "--record-only"]) == 0
    out, err = capsys.readouterr()
    assert server.requests == before and err == ""
    assert out.splitlines()[0] == f"evaltui: verified: {HASH_ONLY}"


def test_record_only_with_files_is_a_usage_error(signed, capsys):
    record, urls, _ = signed
    assert main(["verify", str(record), *urls, "--record-only"]) == 2
    assert "--record-only checks the record alone" in capsys.readouterr().err


def test_an_object_replaced_since_the_review_is_not_the_run_reviewed(signed, capsys):
    record, urls, folder = signed
    shutil.copy(CAND, folder / BASE.name)  # the baseline's URL now serves other bytes
    assert main(["verify", str(record)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("evaltui: verify: reading the runs from the URLs")
    assert len(err) == 2 and err[1].startswith(f"evaltui: NOT verified: {urls[0]} is not the ")
    assert "baseline that was reviewed" in err[1] and FROM_URLS in err[1]


def test_an_object_gone_is_one_line_and_exit_2(signed, capsys):
    record, urls, folder = signed
    (folder / CAND.name).unlink()
    assert main(["verify", str(record)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[1] == f"evaltui: error: {urls[1]}: no such object (check the URL)"


def test_an_edited_record_is_refused_before_any_request(signed, http_root, capsys):
    record, _, _ = signed
    server, _ = http_root
    data = json.loads(record.read_text())
    data["rationale"] = "edited"
    record.write_text(json.dumps(data))
    before = server.requests
    assert main(["verify", str(record)]) == 1
    assert server.requests == before
    err = capsys.readouterr().err.splitlines()  # (nothing said of reading the URLs either)
    assert err == ["evaltui: NOT verified: the record's content does not match its "
                   "content_hash: it was edited"]  # fmt: skip


def test_a_run_set_record_is_rebuilt_from_the_urls_it_names(
    http_root, tmp_path, capsys, monkeypatch
):
    from tests.core.read.remote.conftest import SAMPLE_RUNS

    server, root = http_root
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    folder = root / tmp_path.name
    folder.mkdir()
    names = ("baseline", "candidate", "candidate2")
    for name in names:
        shutil.copy(SAMPLE_RUNS / f"{name}.jsonl", folder / f"{name}.jsonl")
    urls = [f"{server.url}/{tmp_path.name}/{name}.jsonl" for name in names]
    code = main(["signoff", *urls, "--decision", "needs-more-data", "--rationale", "r",
                 "--output", str(tmp_path / "rs")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    monkeypatch.setattr(registry, "_seen", {})  # (a process of its own, as in `signed`)
    assert main(["verify", str(tmp_path / "rs.json")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "the 3 files are the ones reviewed" in first and FROM_URLS in first
