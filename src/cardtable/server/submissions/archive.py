"""An uploaded archive, checked: a tar.gz or a zip holding ``cardtable.json`` and the program.

Every check refuses the whole archive with :class:`ArchiveError` saying what is wrong (HTTP 422
or 413), before anything is stored: an absolute path, a ``..``, a link (symbolic or hard), a
device, a FIFO or any other non-regular member, two members of one path, more files or more
unpacked bytes than allowed (counted while reading, so a member that lies about its size, or a
compression bomb, costs no more than the limit), a missing or wrong manifest.

The manifest ``cardtable.json``::

    {"name": "my-bot", "language": "python", "entry": "bot.py"}

``language`` is ``python``, ``node``, ``c`` (sources the server compiles) or ``binary`` (a
Linux x86-64 executable); ``entry`` is the file to run (python, node, binary) or the ``.c`` file
with ``main`` (c), a path inside the archive.
"""

from __future__ import annotations

import io
import json
import re
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from cardtable.sandbox.jail import LANGUAGES

MANIFEST = "cardtable.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$")
_PATH_PART = re.compile(r"^[A-Za-z0-9_.+-]{1,100}$")


class ArchiveError(Exception):
    """The archive is refused; ``status`` is the HTTP status to answer (413: too large)."""

    def __init__(self, reason: str, status: int = 422) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass(frozen=True)
class Manifest:
    name: str
    language: str
    entry: str


@dataclass(frozen=True)
class Unpacked:
    """A checked archive: its manifest and its files (path -> bytes)."""

    manifest: Manifest
    files: dict[str, bytes]

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.files.values())


@dataclass(frozen=True)
class ArchiveLimits:
    archive_bytes: int = 1024 * 1024
    unpacked_bytes: int = 16 * 1024 * 1024
    files: int = 200


def check_path(name: str) -> str:
    """The member's path, normalised (``./a/b`` -> ``a/b``), or :class:`ArchiveError`."""
    if name.startswith("/") or "\\" in name:
        raise ArchiveError(f"the archive holds {name!r}: an absolute path or a backslash")
    parts = [p for p in PurePosixPath(name).parts if p != "."]
    if any(p == ".." for p in parts):
        raise ArchiveError(f"the archive holds {name!r}: a path with '..' leaves its folder")
    if not parts:
        raise ArchiveError(f"the archive holds a member without a name ({name!r})")
    bad = [p for p in parts if not _PATH_PART.match(p)]
    if bad:
        raise ArchiveError(
            f"the archive holds {name!r}: file names may use letters, digits and '_.+-' only"
        )
    return "/".join(parts)


def read_archive(data: bytes, limits: ArchiveLimits) -> Unpacked:
    """Check ``data`` (a tar.gz or a zip) and read its files, or :class:`ArchiveError`."""
    if len(data) > limits.archive_bytes:
        raise ArchiveError(
            f"the archive has {len(data)} bytes; the limit is {limits.archive_bytes}", 413
        )
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        files = _read_zip(data, limits)
    elif data[:2] == b"\x1f\x8b":
        files = _read_tar(data, limits)
    else:
        raise ArchiveError("the upload is neither a tar.gz nor a zip archive")
    return Unpacked(read_manifest(files), files)


def _add(files: dict[str, bytes], path: str, content: bytes, limits: ArchiveLimits) -> None:
    if path in files:
        raise ArchiveError(f"the archive holds {path!r} twice")
    if len(files) >= limits.files:
        raise ArchiveError(f"the archive holds more than {limits.files} files", 413)
    files[path] = content
    total = sum(len(v) for v in files.values())
    if total > limits.unpacked_bytes:
        raise ArchiveError(f"the archive unpacks to more than {limits.unpacked_bytes} bytes", 413)


def _read_tar(data: bytes, limits: ArchiveLimits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    left = limits.unpacked_bytes
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            count = 0
            for member in tar:
                count += 1
                if count > limits.files * 2:  # folders included
                    raise ArchiveError(f"the archive holds more than {limits.files} files", 413)
                path = check_path(member.name)
                if member.isdir():
                    continue
                if member.issym() or member.islnk():
                    raise ArchiveError(f"the archive holds {path!r}: a link (links are refused)")
                if not member.isfile():
                    raise ArchiveError(
                        f"the archive holds {path!r}: not a regular file (a device, FIFO...)"
                    )
                if member.size > left:
                    raise ArchiveError(
                        f"the archive unpacks to more than {limits.unpacked_bytes} bytes", 413
                    )
                stream = tar.extractfile(member)
                content = stream.read(member.size + 1) if stream is not None else b""
                left -= len(content)
                _add(files, path, content, limits)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ArchiveError(f"the tar.gz archive cannot be read: {exc}") from None
    return files


def _read_zip(data: bytes, limits: ArchiveLimits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > limits.files * 2:
                raise ArchiveError(f"the archive holds more than {limits.files} files", 413)
            for info in infos:
                path = check_path(info.filename)
                mode = info.external_attr >> 16
                if info.is_dir():
                    continue
                if stat.S_ISLNK(mode):
                    raise ArchiveError(f"the archive holds {path!r}: a link (links are refused)")
                if stat.S_IFMT(mode) and not stat.S_ISREG(mode):  # no type bits: a file
                    raise ArchiveError(
                        f"the archive holds {path!r}: not a regular file (a device, FIFO...)"
                    )
                left = limits.unpacked_bytes - sum(len(v) for v in files.values())
                with archive.open(info) as stream:
                    content = stream.read(left + 1)  # a lying header costs no more than this
                _add(files, path, content, limits)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        raise ArchiveError(f"the zip archive cannot be read: {exc}") from None
    return files


def read_manifest(files: dict[str, bytes]) -> Manifest:
    raw = files.get(MANIFEST)
    if raw is None:
        raise ArchiveError(
            f"the archive has no {MANIFEST} at its top: "
            '{"name": "...", "language": "python|node|c|binary", "entry": "bot.py"}'
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ArchiveError(f"{MANIFEST} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ArchiveError(f"{MANIFEST} must be a JSON object")
    unknown = sorted(set(data) - {"name", "language", "entry"})
    if unknown:
        raise ArchiveError(f"{MANIFEST} has unknown keys {unknown} (name, language, entry)")
    name, language, entry = data.get("name"), data.get("language"), data.get("entry")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ArchiveError(f"{MANIFEST}: name must be 1-64 letters, digits, ' ._-'")
    if language not in LANGUAGES:
        raise ArchiveError(f"{MANIFEST}: language must be one of {', '.join(LANGUAGES)}")
    if not isinstance(entry, str):
        raise ArchiveError(f"{MANIFEST}: entry must be the path of a file in the archive")
    entry = check_path(entry)
    if entry not in files:
        raise ArchiveError(f"{MANIFEST}: the entry point {entry!r} is not in the archive")
    if language == "c" and not entry.endswith(".c"):
        raise ArchiveError(f"{MANIFEST}: a C bot's entry is its .c file with main, not {entry!r}")
    return Manifest(name, str(language), entry)


def write_files(files: dict[str, bytes], folder: Path) -> None:
    """Write checked files under ``folder`` (readable by the sandbox's own user)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    for path, content in files.items():
        target = folder / path
        for parent in reversed(target.relative_to(folder).parents[:-1]):
            (folder / parent).mkdir(exist_ok=True)
            (folder / parent).chmod(0o755)
        target.write_bytes(content)
        target.chmod(0o644)
