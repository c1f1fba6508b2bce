"""Who signed a record: what no check of its content can prove (the reviewer's name, the
rationale, the time) an OpenSSH signature can."""

from __future__ import annotations

from pathlib import Path

from evaltui.core.errors import InputError, UsageError
from evaltui.core.verify.result import Verification, shown

__all__ = ["SIGNATURE_NAMESPACE", "verify_signature"]


SIGNATURE_NAMESPACE = "evaltui-signoff"


def verify_signature(
    record: str | Path, signature: str | Path, allowed_signers: str | Path, identity: str
) -> Verification:
    """Who signed the record: `ssh-keygen -Y verify` with the evaltui-signoff namespace. The
    record must have been signed with `ssh-keygen -Y sign -f KEY -n evaltui-signoff RECORD`;
    `allowed_signers` lists the identities and keys trusted to sign (see ssh-keygen(1))."""
    import shutil
    import subprocess

    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        raise UsageError("checking a signature needs ssh-keygen (OpenSSH 8.1 or later)")
    for path in (record, signature, allowed_signers):
        if not Path(path).is_file():
            raise InputError(path, "no such file")
    with Path(record).open("rb") as handle:
        done = subprocess.run(
            [keygen, "-Y", "verify", "-f", str(allowed_signers), "-I", identity,
             "-n", SIGNATURE_NAMESPACE, "-s", str(signature)],
            stdin=handle, capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    said = shown(" ".join((done.stdout + " " + done.stderr).split()))
    if done.returncode == 0:
        return Verification(True, f"the signature is good: {said}")
    return Verification(False, f"the signature does not verify for {shown(identity)}: {said}")
