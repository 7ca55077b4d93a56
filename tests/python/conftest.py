"""Shared fixtures of the Python tests: the repository root, the `parcels` binary, the test pages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "pages"
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def cli():
    """Runs the `parcels` binary (target/release/parcels, or $PARCELS_BIN) from the repository
    root and returns its stdout as bytes."""
    binary = Path(os.environ.get("PARCELS_BIN", ROOT / "target" / "release" / "parcels"))
    if not binary.exists():
        pytest.fail(f"{binary}: no parcels binary; build it with `cargo build --release` or set PARCELS_BIN")

    def run(*args: str, stdin: bytes = b"") -> bytes:
        done = subprocess.run([str(binary), *args], cwd=ROOT, input=stdin, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        return done.stdout

    return run
