"""What identifies one version of a remote object (`blob.stamp_of`), whatever its store calls
the fields: the cache keeps a copy only while the stamp holds, and a load's last look refuses
an object whose stamp moved."""

from __future__ import annotations

from evaltui.core.read.remote.blob import stamp_of


def test_a_hub_file_replaced_by_one_of_the_same_size_has_another_stamp():
    """The Hugging Face hub's entries (HfFileSystem.info) have no ETag and no time: its git
    blob id is the version. By size alone, the cache served the old copy."""
    before = {"name": "datasets/o/r/a.eval", "size": 4096, "type": "file", "blob_id": "b1" * 20,
              "lfs": None, "last_commit": None}  # fmt: skip
    after = {**before, "blob_id": "c2" * 20}
    assert stamp_of(before).version != stamp_of(after).version
    assert stamp_of(before).version == stamp_of(dict(before)).version


def test_each_stores_fields_make_the_stamp():
    s3 = stamp_of({"ETag": '"abc"', "size": 10, "LastModified": "2026-12-05"})
    assert (s3.etag, s3.size, s3.modified) == ('"abc"', 10, "2026-12-05")
    azure = stamp_of({"etag": '"0x8D"', "size": 10, "last_modified": "t"})
    assert azure.version == '"0x8D"'
    gcs = stamp_of({"etag": "CKih", "size": 10, "updated": "t", "generation": "17"})
    assert gcs.version == "CKih"
    bare = stamp_of({"size": 10, "mtime": 5.0})  # (no ETag: size and time)
    assert bare.version == "10@5.0"
