"""q ends the process at once, even while background workers are still busy."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

from evaltui.ui.app import _QuitNowExecutor


def test_shutting_down_the_workers_executor_does_not_wait_for_a_running_worker():
    executor = _QuitNowExecutor(max_workers=1)
    started, release = threading.Event(), threading.Event()

    def busy():
        started.set()
        release.wait(30)

    running = executor.submit(busy)
    queued = executor.submit(busy)
    started.wait(10)
    executor.shutdown(wait=True)  # what asyncio does when the app ends
    assert running.running()  # shutdown came back while the worker still runs
    assert queued.cancelled()  # and nothing new starts
    release.set()
    running.result(timeout=10)


def test_leaving_closes_the_session_flushes_output_and_skips_the_busy_threads(tmp_path):
    marker = tmp_path / "worker-finished"
    script = textwrap.dedent(
        f"""
        import threading, time
        from pathlib import Path
        from evaltui.cli.main import _leave_without_waiting_for_workers

        class Session:
            def close(self):
                print("session closed", end="")

        class Loaded:
            session = Session()

        class App:
            loaded = Loaded()

        def slow_worker():
            time.sleep(60)
            Path({str(marker)!r}).write_text("done")

        threading.Thread(target=slow_worker).start()
        print("before leaving; ", end="")
        _leave_without_waiting_for_workers(App(), 3)
        print("never printed")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 3
    assert done.stdout == "before leaving; session closed"
    assert not marker.exists()
