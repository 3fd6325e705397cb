"""Byte-identical ``.npz`` files: :func:`numpy.savez` stamps every zip entry with the
current time, so two saves of the same arrays differ. :func:`save_npz` writes the same
layout (one ``NAME.npy`` entry per array, readable by :func:`numpy.load`) with a fixed
entry date (1980-01-01, the earliest a zip file can hold) and fixed permissions.
"""

from __future__ import annotations

import os
import zipfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = ["save_npz", "FIXED_DATE", "npz_headers", "check_npz_memory", "read_metadata_json", "written_whole"]

#: The date written into every zip entry.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


@contextmanager
def written_whole(path):
    """A hidden file beside ``path`` to write into (``.<stem>.partial<suffix>``): it replaces ``path``
    once the block ends without an error and is removed either way, so ``path`` is never
    half-written."""
    path = Path(os.fspath(path))
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def save_npz(path, arrays: dict, *, compress=False, append=False) -> str:
    """Write ``arrays`` (name -> array-like) to ``path`` as an ``.npz`` archive.

    ``path`` gets ``.npz`` appended when it has another suffix (as :func:`numpy.savez`
    does). ``append`` adds the entries to an existing archive. Returns the path written.
    Arrays of Python objects are refused (files are read back without pickle).
    """
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    mode = "a" if append else "w"
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, mode, compression=method, allowZip64=True) as zf:
        for name, value in arrays.items():
            value = np.asanyarray(value)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            info.file_size = value.nbytes + _HEADER_ROOM  # zipfile's zip64 choice from the size to come
            with zf.open(info, "w") as entry:  # streamed: no second copy of the array in memory
                np.lib.format.write_array(entry, value, allow_pickle=False)
    return path


#: bytes an ``.npy`` header may take, for the size announced before an entry is streamed
_HEADER_ROOM = 4096


#: Largest ``metadata`` entry (a JSON string) a result file may hold, and its deepest nesting.
MAX_METADATA_BYTES = 1 << 20
MAX_METADATA_DEPTH = 64


def npz_headers(path, *, name=None, expected="a readable .npz file") -> dict:
    """``{array name: (shape, dtype)}`` of an ``.npz`` file, read from each entry's ``.npy``
    header only (:func:`numpy.lib.format.read_magic` / ``read_array_header_*``): nothing is
    decompressed beyond the first bytes of each entry, so a file whose header declares a
    huge array costs nothing to inspect. SeqimpError (one line naming ``name`` or the path)
    for a file that is not such an archive, and for an entry whose declared size disagrees
    with the size the zip directory gives it (``expected``: what the message says the file is not)."""
    from ..errors import SeqimpError

    where = os.fspath(path) if name is None else name
    headers = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                with zf.open(info) as fh:
                    version = np.lib.format.read_magic(fh)
                    read = {(1, 0): np.lib.format.read_array_header_1_0,
                            (2, 0): np.lib.format.read_array_header_2_0}.get(version)
                    if read is None:
                        raise ValueError(f"entry {info.filename}: .npy format version {version}")
                    shape, _fortran, dtype = read(fh, max_header_size=10_000)
                    data_offset = fh.tell()
                if dtype.hasobject:
                    raise ValueError(f"entry {info.filename} holds Python objects")
                nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if data_offset + nbytes != info.file_size:
                    raise ValueError(f"entry {info.filename} declares {nbytes:,} bytes of data but holds "
                                     f"{max(info.file_size - data_offset, 0):,}")
                headers[info.filename[:-4]] = (tuple(int(n) for n in shape), dtype)
    except (OSError, EOFError, zipfile.BadZipFile, ValueError, TypeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SeqimpError(f"{where}: not {expected} ({text})") from None
    return headers


def check_npz_memory(headers: dict, *, name, available=None) -> int:
    """The bytes the arrays of ``headers`` (:func:`npz_headers`) take once read; SeqimpError
    when that is more than the memory ``available`` (default: what the machine has free now)."""
    from .sizes import available_memory, format_size
    from ..errors import SeqimpError

    total = sum(int(np.prod(shape, dtype=object)) * dtype.itemsize for shape, dtype in headers.values())
    available = available_memory() if available is None else available
    if total > available:
        biggest = max(headers, key=lambda k: int(np.prod(headers[k][0], dtype=object)) * headers[k][1].itemsize)
        raise SeqimpError(f"{name}: its arrays take {format_size(total)} once read ({biggest!r} has shape "
                          f"{headers[biggest][0]}), more than the {format_size(available)} of memory available")
    return total


def read_metadata_json(text, *, name):
    """The JSON value of a result file's ``metadata`` entry, with its size and nesting bounded
    (:data:`MAX_METADATA_BYTES`, :data:`MAX_METADATA_DEPTH`): SeqimpError instead of a
    RecursionError or a parse of a huge string."""
    import json

    from ..errors import SeqimpError

    if len(text) > MAX_METADATA_BYTES:
        raise SeqimpError(f"{name}: its metadata is {len(text):,} characters long, more than the "
                          f"{MAX_METADATA_BYTES:,} a seqimp file holds; the file was altered")
    depth = deepest = 0
    in_string = escaped = False
    for char in text:  # nesting outside strings, before the parser recurses into it
        if in_string:
            escaped, in_string = (not escaped and char == "\\"), in_string and (escaped or char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    if deepest > MAX_METADATA_DEPTH:
        raise SeqimpError(f"{name}: its metadata is nested {deepest} levels deep, more than the "
                          f"{MAX_METADATA_DEPTH} a seqimp file holds; the file was altered")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise SeqimpError(f"{name}: its metadata is not valid JSON ({str(exc).splitlines()[0]})") from None
