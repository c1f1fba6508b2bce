"""`https://` runs, served as http:// by a Range-capable server on the loopback (TLS is the
transport's, not evaltui's): an `.eval` log read by byte ranges, a JSONL run from a cached copy,
an object replaced mid-read refused by its ETag (If-Match), a missing URL in one line."""

from __future__ import annotations

import os
import shutil

import pytest

from evaltui.cli.main import main
from evaltui.core.read.describe import display_path
from evaltui.core.read.formats import load_run
from evaltui.core.read.remote.failures import RemoteError
from tests.core.read.remote.conftest import BASE, CAND, one_line_exit_2, padded


def test_report_over_http_matches_the_local_files(http_root, capsys, monkeypatch):
    server, _ = http_root
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    base, cand = f"{server.url}/{BASE.name}", f"{server.url}/{CAND.name}"
    assert main(["report", base, cand]) == 4
    remote = capsys.readouterr().out
    assert main(["report", str(BASE), str(CAND)]) == 4
    local = capsys.readouterr().out
    # The same report, but where each names its file: the URL remotely; locally the path as
    # given (the inputs line) and as a pull request shows it (the run descriptions).
    names = {"<BASE>": (base, str(BASE), display_path(str(BASE)))}
    names["<CAND>"] = (cand, str(CAND), display_path(str(CAND)))

    def neutral(text: str) -> str:
        for mark, spellings in names.items():
            for spelling in sorted(spellings, key=len, reverse=True):
                text = text.replace(spelling, mark)
        return text

    assert neutral(remote) == neutral(local)
    assert base in remote and "http:/1" not in remote  # the URL shown whole, not folded


def test_the_json_report_names_the_urls_whole_in_its_spec_too(http_root, capsys):
    """`Path` folds `http://host/x` into `http:/host/x`; the spec block (which a record keeps
    and an auditor reads) wrote it so, while the inputs block had the URL whole."""
    import json

    server, _ = http_root
    base, cand = f"{server.url}/baseline.jsonl", f"{server.url}/candidate.jsonl"
    policy = f"{server.url}/policy.toml"
    main(["report", "--format", "json", base, cand, "--policy", policy])
    written = capsys.readouterr().out
    spec = json.loads(written)["spec"]
    assert (spec["baseline"], spec["candidate"], spec["policy"]) == (base, cand, policy)
    assert "http:/1" not in written


def test_jsonl_over_http_is_cached_by_etag(http_root, capsys, remote_env):
    server, _ = http_root
    urls = [f"{server.url}/baseline.jsonl", f"{server.url}/candidate.jsonl"]
    first_code = main(["report", *urls])
    first = capsys.readouterr().out
    before = server.requests
    assert main(["report", *urls]) == first_code
    assert capsys.readouterr().out == first
    assert server.requests - before == 2  # a HEAD each; the bytes come from the cache


def test_a_replaced_object_is_refused_by_its_etag(http_root):
    server, root = http_root
    (root / "moving.eval").write_bytes(padded(BASE, (1 << 20) + 1, between=True))
    run = load_run(f"{server.url}/moving.eval", wait_for_hash=False)
    replacement = root / "moving.tmp"
    shutil.copy(CAND, replacement)
    os.replace(replacement, root / "moving.eval")
    with pytest.raises(RemoteError) as caught:
        run.transcripts.read(4)
    assert caught.value.kind == "changed"


def test_a_missing_url_is_one_line(http_root, capsys):
    server, _ = http_root
    assert main(["report", f"{server.url}/nope.eval", f"{server.url}/{CAND.name}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"evaltui: error: {server.url}/nope.eval: no such object (check the URL)"]


def test_a_policy_at_a_url_gates_like_the_local_file(http_root, capsys):
    from tests.core.read.remote.conftest import SAMPLE_RUNS

    server, _ = http_root
    runs = [str(SAMPLE_RUNS / "baseline.jsonl"), str(SAMPLE_RUNS / "candidate.jsonl")]
    local_code = main(["report", *runs, "--policy", str(SAMPLE_RUNS / "policy.toml")])
    local = capsys.readouterr().out
    remote_code = main(["report", *runs, "--policy", f"{server.url}/policy.toml"])
    assert (remote_code, capsys.readouterr().out) == (local_code, local)


def test_a_preference_file_at_a_url_reports_as_the_local_file(http_root, capsys):
    """`prefer URL` read the URL as a local path: "az:/logs/p.jsonl: cannot read the file"."""
    import json

    from tests.core.read.remote.conftest import SAMPLE_RUNS

    server, root = http_root
    url = f"{server.url}/preferences.jsonl"
    remote_code = main(["prefer", url, "--format", "json"])
    remote = json.loads(capsys.readouterr().out)
    local_code = main(["prefer", str(SAMPLE_RUNS / "preferences.jsonl"), "--format", "json"])
    local = json.loads(capsys.readouterr().out)
    assert remote_code == local_code
    assert json.dumps(remote).replace(url, "<P>") == json.dumps(local).replace(
        str(SAMPLE_RUNS / "preferences.jsonl"), "<P>"
    )
    (root / "broken.jsonl").write_bytes(b'{"item_id": "a", broken\n')
    line = one_line_exit_2(["prefer", f"{server.url}/broken.jsonl"], capsys)
    assert line.startswith(f"evaltui: error: {server.url}/broken.jsonl:1: ")
