"""pytest wiring for the kiosk VM tests: a `run_vm` fixture whose work folder lives in the
test's tmp_path (kept by pytest for the last runs, so a failure can be inspected)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kioskvm  # noqa: E402


@pytest.fixture(scope="session")
def kiosk_binary() -> Path:
    """The host's release build of touchbridge, built when missing (make test builds it first)."""
    binary = kioskvm.release_binary()
    if not binary.exists() and "TB_BINARY" not in os.environ:
        env = dict(os.environ, PATH="/opt/swift/usr/bin:" + os.environ.get("PATH", ""))
        subprocess.run(["swift", "build", "-c", "release", "--product", "touchbridge"],
                       cwd=kioskvm.REPO, check=True, env=env)
    assert binary.exists(), f"{binary} is missing: run `swift build -c release --product touchbridge`"
    return binary


@pytest.fixture(scope="session")
def kiosk_ready(kiosk_binary):
    """Tools installed, kernel downloaded and initramfs built once per session."""
    kioskvm.ensure_host_tools()
    kernel = kioskvm.ensure_kernel()
    kioskvm.ensure_initrd(kernel)
    return kernel


@pytest.fixture
def run_vm(kiosk_ready, tmp_path):
    """run_vm(script, devices=[Touchscreen...], screen=(w, h), timeout=s, files={...}) -> VMResult.
    Each call gets its own work folder under the test's tmp_path."""
    count = 0

    def run(script: str, **kw) -> kioskvm.VMResult:
        nonlocal count
        count += 1
        kw.setdefault("work_dir", tmp_path / f"vm{count}")
        return kioskvm.run_vm(script, **kw)

    return run
