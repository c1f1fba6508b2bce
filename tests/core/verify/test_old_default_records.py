"""Records written when Newcombe's interval was the default still verify (issue 30 item 5).

The fixtures in tests/data/old_records_newcombe were written by evaltui before the default moved
to Tango's interval, without naming a method; verify must rebuild them with the method the
record states (`newcombe`), not with today's default.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.record.signoff import HASH_FIELD, _hash
from evaltui.core.stats.paired_delta import DEFAULT_CI_METHOD

OLD = Path(__file__).parents[2] / "data" / "old_records_newcombe"
RECORDS = ("signoff-old-default.json", "signoff-old-default-policy.json")


def verify(capsys, *args):
    code = main(["verify", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("name", RECORDS)
def test_record_made_under_the_old_default_rebuilds_with_its_own_method(
    capsys, tmp_path, sample_pair, name
):
    record = json.loads((OLD / name).read_text())
    assert record["spec"]["analysis"]["ci_method"] == "newcombe" != DEFAULT_CI_METHOD
    copy = tmp_path / name
    shutil.copy(OLD / name, copy)
    code, out = verify(capsys, copy, *sample_pair)
    assert code == 0, out
    assert "statistics recompute to the recorded values" in out


def test_the_rebuild_reads_the_stated_method(capsys, tmp_path, sample_pair):
    """Restating the old record's method as today's default (rehashed) no longer recomputes:
    so the passing rebuild above really used the record's own `newcombe`."""
    record = json.loads((OLD / RECORDS[0]).read_text())
    record["spec"]["analysis"]["ci_method"] = DEFAULT_CI_METHOD
    body = {k: v for k, v in record.items() if k != HASH_FIELD}
    record[HASH_FIELD] = _hash(body)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(record))
    code, out = verify(capsys, forged, *sample_pair)
    assert code == 1 and "recomputed statistics differ from the record at delta.ci" in out, out
