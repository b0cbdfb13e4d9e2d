"""scripts/uv_from_pip.sh: pip's configuration as uv's options, for the set-up's uv install.

uv reads no pip configuration, so a setting it is not handed (this machine's wheel folder
for the CPU torch, a team's mirror) would install other bytes, or fail.  A stand-in
interpreter answers ``-m pip config list`` with a given listing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def translate(tmp_path: Path, *listing: str) -> tuple[int, list[str], str, str]:
    """(status, UV_ARGS, SSL_CERT_FILE, stderr) of ``uv_args_from_pip`` when ``pip config
    list`` prints the lines ``listing``."""
    listing_file = tmp_path / "listing.txt"
    listing_file.write_text("".join(f"{line}\n" for line in listing))
    python = tmp_path / "python"
    python.write_text(
        f'#!/usr/bin/env bash\n[ "$*" = "-m pip config list" ] && cat {listing_file}\n'
    )
    python.chmod(0o755)
    script = (
        '. scripts/uv_from_pip.sh; uv_args_from_pip "$1"; rc=$?; '
        'echo "rc=$rc"; echo "cert=${SSL_CERT_FILE:-}"; printf \'%s\\n\' "${UV_ARGS[@]}"'
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    done = subprocess.run(
        ["bash", "-c", script, "bash", str(python)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    return (
        int(lines[0].removeprefix("rc=")),
        lines[2:],
        lines[1].removeprefix("cert="),
        done.stderr,
    )


def test_where_packages_come_from_is_handed_on(tmp_path: Path) -> None:
    rc, args, cert, _ = translate(
        tmp_path,
        "global.extra-index-url='file:///opt/a/simple file:///opt/b/simple'",
        # Written over several lines of a config file, as `pip config list` shows it.
        r"global.find-links='\n/opt/wheels\n/opt/more-wheels'",
        ":env:.config-file='/etc/team/pip.conf'",  # where the settings above were read
        "global.constraint='/etc/pip/constraints.txt'",
        "global.no-index='false'",
        "global.trusted-host='mirror.internal'",
        ":env:.cert='/etc/ssl/team.pem'",
        ":env:.default-timeout='180'",  # how pip talks: nothing to hand on
        ":env:.disable-pip-version-check='1'",
    )
    assert rc == 0
    pairs = list(zip(args[2::2], args[3::2], strict=True))
    assert args[:2] == ["--index-strategy", "unsafe-best-match"]  # pip's choice across indexes
    assert sorted(pairs) == sorted(
        [
            ("--extra-index-url", "file:///opt/a/simple"),
            ("--extra-index-url", "file:///opt/b/simple"),
            ("--find-links", "/opt/wheels"),
            ("--find-links", "/opt/more-wheels"),
            ("--constraint", "/etc/pip/constraints.txt"),
            ("--allow-insecure-host", "mirror.internal"),
        ]
    )
    assert cert == "/etc/ssl/team.pem"


def test_the_setting_pip_would_use_wins(tmp_path: Path) -> None:
    # A PIP_* variable over the [install] section over [global], as pip itself decides.
    rc, args, _, _ = translate(
        tmp_path,
        "global.index-url='https://global.example/simple'",
        "install.index-url='https://install.example/simple'",
        ":env:.index-url='https://env.example/simple'",
        "global.no-index='true'",
        "download.find-links='/elsewhere'",  # another command's section: not install's
    )
    assert rc == 0
    assert "--index-url" in args
    assert args[args.index("--index-url") + 1] == "https://env.example/simple"
    assert args.count("--index-url") == 1
    assert "--no-index" in args
    assert "--find-links" not in args


@pytest.mark.parametrize(
    "line",
    ["global.proxy='http://proxy.internal:3128'", ":env:.pre='1'", "install.only-binary=':all:'"],
)
def test_a_setting_uv_is_not_told_sends_the_install_to_pip(tmp_path: Path, line: str) -> None:
    rc, _, _, stderr = translate(tmp_path, line)
    key = line.split(".", 1)[1].split("=", 1)[0]
    assert rc == 1
    assert f"pip's configuration sets '{key}', which uv is not told" in stderr


def test_no_configuration(tmp_path: Path) -> None:
    rc, args, cert, stderr = translate(tmp_path)
    assert (rc, args, cert, stderr) == (0, ["--index-strategy", "unsafe-best-match"], "", "")
