"""Random keys, at length: the property of tests/ui/test_random_keys.py with fresh seeds and
thousands of sequences (not CI: about 2 s per session of up to 10 sequences on 2 cores).

Each session opens the demo pair (with its policy) under Pilot, sends random key sequences on
every screen, one key at a time or in bursts, and checks after each that the app still runs,
reported no unexpected error and that its journal, session and list rows agree. The first
failure is shrunk by hypothesis to a short sequence and printed with its reproduce blob.

    .venv/bin/python bench/random_keys.py                      # 400 sessions, ~2,200 sequences
    .venv/bin/python bench/random_keys.py --sessions 50 --seed 7
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402

from tests.ui.test_random_keys import SESSION, run_session  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=None, help="default: a fresh one")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    work = Path(tempfile.mkdtemp(prefix="evaltui-random-keys-"))
    os.chdir(work)  # Ctrl+S in the sign-off dialog writes its record here
    counter = itertools.count()
    sequences = [0]

    @hypothesis_seed(seed)
    @settings(
        max_examples=args.sessions, deadline=None, database=None, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(SESSION)
    def sessions(drawn) -> None:
        sequences[0] += len(drawn)
        run_session(work / f"state{next(counter)}", drawn)

    started = time.monotonic()
    print(f"random keys: {args.sessions} sessions, seed {seed}, in {work}", flush=True)
    try:
        sessions()
    except Exception as exc:  # noqa: BLE001 - the shrunk failure, printed for the report
        print(f"FAILED after {sequences[0]} sequences: {type(exc).__name__}: {exc}")
        return 1
    print(
        f"random keys: {next(counter)} sessions, {sequences[0]} sequences, no crash, journal "
        f"consistent ({time.monotonic() - started:.0f} s, seed {seed})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
