"""Where CheckList's released suite tarballs come from, and proof that they are the right ones.

The tarballs are large third-party data that must never be committed; they are looked up
in caller-chosen directories (the shared reference copy, a user cache), checked against the
sha256 of the published release, and optionally downloaded into the cache.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nlp_gate.config import ConfigurationError
from nlp_gate.config.paths import user_cache_dir

SUITE_NAMES = ("sentiment", "qqp")

_RELEASE_URL = "https://github.com/marcotcr/checklist/raw/master/release_suites/{file}"


@dataclass(frozen=True)
class ReleaseSuite:
    name: str
    member: str  # the pickle inside the tarball
    sha256: str  # of the tarball, as published in CheckList's repository
    url: str

    @property
    def filename(self) -> str:
        return f"{self.name}_suite.tar.gz"


RELEASE_SUITES: dict[str, ReleaseSuite] = {
    "sentiment": ReleaseSuite(
        "sentiment",
        "sentiment_suite.pkl",
        "d546320bd859e04fc3eb5f11b62ca96d7b19b29010b8925843cbfb8722091111",
        _RELEASE_URL.format(file="sentiment_suite.tar.gz"),
    ),
    "qqp": ReleaseSuite(
        "qqp",
        "qqp_suite.pkl",
        "60836d96a7f64b8006b78134a75f6664677a90318b0830768d971dbde35e64c4",
        _RELEASE_URL.format(file="qqp_suite.tar.gz"),
    ),
}


class SuiteUnavailable(ConfigurationError, RuntimeError):
    """A release suite tarball is missing, corrupt or could not be downloaded."""


def default_cache_dir() -> Path:
    """``checklist-release`` in the user's cache (``$NLP_GATE_CACHE``, else
    ``$XDG_CACHE_HOME/nlp-gate``, else ``~/.cache/nlp-gate``)."""
    return user_cache_dir() / "checklist-release"


SHARED_SUITES = Path("shared/reference/checklist-release")


def default_search_dirs(repo_root: Path) -> list[Path]:
    """The shared reference copy next to the checkout, then next to the checkout it was cloned
    from (``git clone . /tmp/x`` of a checkout leaves ``shared/`` behind), then the user
    cache."""
    dirs = [repo_root.parent / SHARED_SUITES]
    origin = _local_origin(repo_root)
    if origin is not None and origin.parent != repo_root.parent:
        dirs.append(origin.parent / SHARED_SUITES)
    return [*dirs, default_cache_dir()]


def _local_origin(repo_root: Path) -> Path | None:
    """The checkout ``repo_root`` was cloned from, when its ``origin`` remote is a local
    directory; None for a remote URL, no remote or no git."""
    try:
        url = subprocess.run(
            ["git", "-C", str(repo_root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    path = Path(url.removeprefix("file://")) if url else None
    return path.resolve() if path is not None and path.is_absolute() and path.is_dir() else None


def release_suite(name: str) -> ReleaseSuite:
    try:
        return RELEASE_SUITES[name]
    except KeyError:
        raise ValueError(
            f"unknown CheckList release suite {name!r}; known: {SUITE_NAMES}"
        ) from None


def file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def verify(suite: ReleaseSuite, path: Path) -> Path:
    """``path`` if its sha256 is the release's; SuiteUnavailable saying what to do otherwise."""
    actual = file_sha256(path)
    if actual != suite.sha256:
        raise SuiteUnavailable(
            f"{path} has sha256 {actual}, expected {suite.sha256} for CheckList's released "
            f"{suite.name} suite (corrupt, truncated or a different release). Delete it and "
            f"fetch the original: {_fetch_command(suite, path.parent)}"
        )
    return path


def locate(
    name: str,
    search_dirs: Sequence[Path],
    cache_dir: Path | None = None,
    download: bool = False,
    *,
    download_hint: str = "run the gate with --nlp-download (locate(..., download=True))",
) -> Path:
    """The verified tarball of suite ``name``.

    Looks for ``<name>_suite.tar.gz`` in ``search_dirs`` then ``cache_dir``; the first file
    found must match the release sha256 (a mismatch is an error, not skipped).  If none is
    found and ``download`` is set, downloads it into ``cache_dir``.  ``download_hint`` tells
    users of the caller how to enable downloading (e.g. a command-line option).
    """
    suite = release_suite(name)
    dirs = [*search_dirs, *([cache_dir] if cache_dir is not None else [])]
    # dict.fromkeys: the cache is often also a search dir; look (and report) once
    candidates = list(dict.fromkeys(Path(d) / suite.filename for d in dirs))
    for path in candidates:
        if path.is_file():
            return verify(suite, path)
    if download and cache_dir is not None:
        return _download(suite, Path(cache_dir))
    looked = "\n".join(f"  - {p}" for p in candidates) or "  (no directories given)"
    target = (
        Path(cache_dir)
        if cache_dir is not None
        else (Path(search_dirs[0]) if search_dirs else default_cache_dir())
    )
    reason = (
        "download=True needs a cache_dir to download into"
        if download
        else f"to download it automatically, {download_hint}"
    )
    raise SuiteUnavailable(
        f"CheckList release suite {name!r} ({suite.filename}, sha256 {suite.sha256}) not found.\n"
        f"Looked in:\n{looked}\n"
        f"Get it from {suite.url}, e.g.:\n  {_fetch_command(suite, target)}\n"
        f"or {reason}."
    )


def read_member(suite: ReleaseSuite, tarball: Path) -> bytes:
    """The suite's pickle bytes, read from the tarball in memory (nothing is extracted)."""
    try:
        with tarfile.open(tarball, "r:gz") as tf:
            member = tf.getmember(suite.member)
            stream = tf.extractfile(member) if member.isfile() else None
            if stream is None:
                raise KeyError(suite.member)
            return stream.read()
    except (tarfile.TarError, KeyError, OSError) as e:
        raise SuiteUnavailable(
            f"{tarball}: cannot read member {suite.member!r} ({e!r}); expected CheckList's "
            f"{suite.filename} from {suite.url}"
        ) from e


def _fetch_command(suite: ReleaseSuite, directory: Path) -> str:
    return f"mkdir -p {directory} && curl -fL -o {directory / suite.filename} {suite.url}"


def _download(suite: ReleaseSuite, cache_dir: Path) -> Path:
    target = cache_dir / suite.filename
    # Download next to the target and rename only once verified: concurrent workers and
    # interrupted downloads never leave a half-written file under the real name.
    tmp = cache_dir / f".{suite.filename}.{os.getpid()}.part"
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(suite.url, timeout=120) as response, tmp.open("wb") as out:
            while chunk := response.read(1 << 20):
                out.write(chunk)
        verify(suite, tmp)
        os.replace(tmp, target)
    except SuiteUnavailable:
        tmp.unlink(missing_ok=True)
        raise
    except OSError as e:  # URLError is an OSError
        tmp.unlink(missing_ok=True)
        raise SuiteUnavailable(
            f"downloading CheckList release suite {suite.name!r} from {suite.url} into "
            f"{cache_dir} failed: {e}. Fetch it by hand: {_fetch_command(suite, cache_dir)}"
        ) from e
    return target
