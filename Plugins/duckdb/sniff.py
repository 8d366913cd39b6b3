"""What a file is, from its content: the compression (magic bytes), then the table format inside
(magic bytes, then the first characters, then the file name's extension). Standard library only,
except zstandard for .zst files (imported when one is met).

    detect("sales.csv.gz")  ->  Kind(compression="gzip", format="csv")
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from dataclasses import dataclass

FORMATS = ("csv", "tsv", "parquet", "jsonl", "json", "arrow", "xlsx")
COMPRESSIONS = ("gzip", "zstd", "bzip2", "xz")

COMPRESSION_MAGIC = [
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
]
COMPRESSION_EXT = {".gz": "gzip", ".gzip": "gzip", ".zst": "zstd", ".zstd": "zstd", ".bz2": "bzip2",
                   ".xz": "xz"}
FORMAT_EXT = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "csv", ".parquet": "parquet",
              ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
              ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow", ".arrows": "arrow",
              ".xlsx": "xlsx", ".xlsm": "xlsx", ".xls": "xlsx", ".ods": "xlsx"}
CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # OLE compound file: .xls, or an encrypted .xlsx
SNIFF_BYTES = 64 * 1024


class NotATable(Exception):
    """The file is none of the formats; the message says what it looks like."""


class Encrypted(Exception):
    """A password-protected Office file."""


@dataclass
class Kind:
    compression: str | None  # one of COMPRESSIONS, or None
    format: str              # one of FORMATS


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} bytes"


def compression_of(head: bytes) -> str | None:
    for magic, name in COMPRESSION_MAGIC:
        if head.startswith(magic):
            return name
    return None


def open_decompressed(path: str, compression: str | None) -> io.BufferedIOBase:
    """The file's bytes, decompressed as they are read (never unpacked to disk)."""
    if compression is None:
        return open(path, "rb")
    if compression == "gzip":
        return gzip.open(path, "rb")
    if compression == "bzip2":
        return bz2.open(path, "rb")
    if compression == "xz":
        return lzma.open(path, "rb")
    if compression == "zstd":
        import zstandard  # noqa: PLC0415 - only for .zst files
        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    raise ValueError(compression)


def _strip_ext(name: str) -> tuple[str, str]:
    base, ext = os.path.splitext(name)
    return base, ext.lower()


def _extension_format(name: str) -> str | None:
    base, ext = _strip_ext(name)
    if ext in COMPRESSION_EXT:
        base, ext = _strip_ext(base)
    return FORMAT_EXT.get(ext)


def _is_xlsx_zip(path: str) -> bool:
    import zipfile  # noqa: PLC0415
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return "xl/workbook.xml" in names or "xl/workbook.bin" in names or "content.xml" in names


def is_encrypted_office(path: str) -> bool:
    """An OLE compound file holding an `EncryptedPackage` stream: a password-protected .xlsx."""
    needle = "EncryptedPackage".encode("utf-16-le")
    with open(path, "rb") as f:
        tail = b""
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return False
            if needle in tail + chunk:
                return True
            tail = chunk[-len(needle):]


def _text_format(start: bytes) -> str | None:
    """json / jsonl from the first non-blank character of decompressed text, else None."""
    text = start.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        return "jsonl"
    return None


def looks_binary(start: bytes) -> bool:
    """Text has no NUL bytes and decodes as UTF-8 (or, failing that, is mostly printable)."""
    if not start:
        return False
    if b"\x00" in start:
        return True
    sample = start[:SNIFF_BYTES]
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as e:
        if e.start >= len(sample) - 4:  # a character cut by the sample's end
            return False
    printable = sum(1 for b in sample if b >= 0x20 or b in (9, 10, 13))
    return printable < 0.9 * len(sample)


def describe_bytes(path: str, start: bytes) -> str:
    """`binary, 3.2 MB, starts 7F 45 4C 46`: what a file that is no table looks like."""
    kind = "binary" if looks_binary(start) else "text"
    size = human_size(os.path.getsize(path))
    if not start:
        return "empty file"
    return f"{kind}, {size}, starts " + " ".join(f"{b:02X}" for b in start[:4])


def detect(path: str, hint: str | None = None) -> Kind:
    """The compression and the format of `path`; `hint` (a FORMATS name) overrides the format.
    Raises NotATable, Encrypted, OSError."""
    with open(path, "rb") as f:
        head = f.read(16)
    compression = compression_of(head)
    name = os.path.basename(path)
    if compression is None and not head:
        raise NotATable("empty file")
    if compression is not None:
        try:
            with open_decompressed(path, compression) as inner:
                start = inner.read(SNIFF_BYTES)
        except (OSError, EOFError, lzma.LZMAError, ValueError) as e:
            start = b""
            if hint is None and _extension_format(name) is None:
                raise NotATable(f"damaged {compression} data ({e})") from None
        if hint:
            return Kind(compression, hint)
        if start.startswith(b"PAR1"):
            return Kind(compression, "parquet")
        if start.startswith(b"ARROW1") or start.startswith(b"\xff\xff\xff\xff") or start.startswith(b"FEA1"):
            return Kind(compression, "arrow")
        fmt = _text_format(start)
        if fmt:
            return Kind(compression, fmt)
        ext = _extension_format(name)
        if ext:
            return Kind(compression, ext)
        if looks_binary(start):
            raise NotATable(f"{compression} data that is no table (binary, starts "
                            + " ".join(f"{b:02X}" for b in start[:4]) + ")")
        return Kind(compression, "csv")
    if hint:
        if hint == "xlsx" and head.startswith(CFB_MAGIC) and is_encrypted_office(path):
            raise Encrypted("password-protected (encrypted) workbook")
        return Kind(None, hint)
    if head.startswith(b"PAR1"):
        return Kind(None, "parquet")
    if head.startswith(b"ARROW1") or head.startswith(b"\xff\xff\xff\xff") or head.startswith(b"FEA1"):
        return Kind(None, "arrow")
    if head.startswith(b"PK\x03\x04"):
        if _is_xlsx_zip(path):
            return Kind(None, "xlsx")
        raise NotATable(describe_bytes(path, head) + ": a zip archive, not a workbook")
    if head.startswith(CFB_MAGIC):
        if is_encrypted_office(path):
            raise Encrypted("password-protected (encrypted) workbook")
        return Kind(None, "xlsx")  # an old .xls workbook: calamine reads it
    with open(path, "rb") as f:
        start = f.read(SNIFF_BYTES)
    fmt = _text_format(start)
    if fmt:
        return Kind(None, fmt)
    if looks_binary(start):
        raise NotATable(describe_bytes(path, start))
    ext = _extension_format(name)
    if ext in ("csv", "tsv"):
        return Kind(None, ext)
    return Kind(None, "csv")
