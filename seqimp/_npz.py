"""Byte-identical ``.npz`` files: :func:`numpy.savez` stamps every zip entry with the
current time, so two saves of the same arrays differ. :func:`save_npz` writes the same
layout (one ``NAME.npy`` entry per array, readable by :func:`numpy.load`) with a fixed
entry date (1980-01-01, the earliest a zip file can hold) and fixed permissions.
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np

__all__ = ["save_npz", "FIXED_DATE"]

#: The date written into every zip entry.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


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
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(value), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            zf.writestr(info, buffer.getvalue())
    return path
