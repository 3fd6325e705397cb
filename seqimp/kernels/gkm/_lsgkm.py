"""LS-GKM model files (Lee 2016, github:Dongwon-Lee/lsgkm): read, score as ``gkmpredict`` does,
and write.

:func:`read_lsgkm_model` reads a model file of ``gkmtrain`` (plain text or gzip-compressed;
every kernel type ``-t 0..5``: ``gkm_cnt``, ``gkm_estfull``, ``gkm_esttrunc``, ``gkmrbf``,
``wgkm``, ``wgkmrbf``) into an :class:`LSGKMModel`, whose :meth:`~LSGKMModel.decision_function`
gives ``gkmpredict``'s scores (the kernels: :mod:`seqimp.kernels.gkm._lsgkm_kernel`).
:func:`write_lsgkm_model` writes such a model, or a fitted :class:`~seqimp.kernels.GKMClassifier`
(:mod:`seqimp.kernels.gkm._lsgkm_export`), as a model file ``gkmpredict`` reads.

The file: header lines ``key value...`` (``svm_type``, ``kernel_type``, ``L``, ``k``, ``d``,
``norc``, ``gamma`` with the RBF kernels, ``M`` and ``H`` with the center-weighted ones,
``nr_class``, ``total_sv``, ``rho``, ``label``, ``nr_sv``), a line ``SV``, then one line per
support vector: its coefficient ``y_s alpha_s`` and its sequence. The decision value of ``x`` is
``sum_s coef_s k(x, sv_s) - rho``, positive for the class of the first ``label`` (gkmtrain's
positive set, label 1).

As LS-GKM does, a letter other than A, C, G, T (either case) in a support vector or a scored
sequence is read as A; each reading or scoring that meets one says so in one warning.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib

import numpy as np

from ...errors import SeqimpError
from ._lsgkm_export import lsgkm_from_gkm
from ._lsgkm_kernel import KERNEL_NAMES, RBF_TYPES, WEIGHTED_TYPES
from ._lsgkm_model import MAX_L, MIN_L, LSGKMModel

__all__ = ["LSGKMModel", "read_lsgkm_model", "write_lsgkm_model", "is_lsgkm_model_file"]

#: The SVM types of LS-GKM's files (libsvm's); the decision value is the same sum for all of them.
SVM_TYPES = ("c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr")
#: The longest sequence LS-GKM's programs read (``MAX_SEQ_LENGTH - 1``): gkmpredict scores the first
#: this many letters of a longer sequence, and a longer support vector overflows its buffers.
LSGKM_MAX_LENGTH = 2047


# --- reading ------------------------------------------------------------------------------

_INT_KEYS = ("L", "k", "d", "norc", "M", "nr_class", "total_sv")
_FLOAT_KEYS = ("gamma", "H")


def is_lsgkm_model_file(path) -> bool:
    """Whether ``path`` looks like an LS-GKM model file: its first word (after gunzipping) is
    ``svm_type`` or ``kernel_type``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            first = fh.read(64).split()
    except (OSError, EOFError, zlib.error):
        return False
    return bool(first) and first[0] in (b"svm_type", b"kernel_type")


def _lines(path):
    """The lines of a model file (plain or gzip), as text (Latin-1: one character a byte)."""
    with open(path, "rb") as fh:
        head = fh.read(2)
    packed = head == b"\x1f\x8b"
    lines = []
    try:
        with (gzip.open if packed else open)(path, "rb") as fh:
            for raw in fh:
                lines.append(raw.decode("latin-1"))
    except (OSError, EOFError, zlib.error) as exc:
        what = "the compressed data is damaged or cut short" if packed else "cannot be read"
        raise SeqimpError(f"{path}, line {len(lines) + 1}: {what} "
                          f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    return lines


def _number(text, kind, where, what):
    try:
        value = int(text) if kind is int else float(text)
    except ValueError:
        raise SeqimpError(f"{where}: {what} {text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if kind is float and not math.isfinite(value):
        raise SeqimpError(f"{where}: {what} {text!r} is not a finite number")
    return value


def read_lsgkm_model(path) -> LSGKMModel:
    """Read a model file of LS-GKM's ``gkmtrain`` (plain text or gzip-compressed).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    LSGKMModel

    Raises
    ------
    SeqimpError
        One line naming the file, the line and what is wrong: a missing file, an unknown key or
        kernel name, a value that is not a number, a parameter out of LS-GKM's range, a missing
        header line, a support-vector line without a coefficient and a sequence, fewer or more
        support vectors than ``total_sv`` (a file cut short), damaged compressed data.

    Warns
    -----
    UserWarning
        Support vectors with letters other than ACGT (read as A, as LS-GKM does).
    """
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise SeqimpError(f"{name}: no such file")
    lines = _lines(name)
    header, where_of = {}, {}
    no = 0
    for no, line in enumerate(lines, 1):
        words = line.split()
        if not words:
            continue
        key, values = words[0], words[1:]
        where = f"{name}, line {no}"
        if key == "SV":
            break
        if key in header:
            raise SeqimpError(f"{where}: a second {key!r} line")
        if key in ("svm_type", "kernel_type"):
            table = SVM_TYPES if key == "svm_type" else KERNEL_NAMES
            if len(values) != 1 or values[0] not in table:
                raise SeqimpError(f"{where}: unknown {key} {' '.join(values)!r} (LS-GKM's: {', '.join(table)})")
            header[key] = values[0]
        elif key in _INT_KEYS or key in _FLOAT_KEYS:
            if len(values) != 1:
                raise SeqimpError(f"{where}: {key} takes one value, got {len(values)}")
            header[key] = _number(values[0], int if key in _INT_KEYS else float, where, key)
        elif key in ("rho", "label", "nr_sv", "probA", "probB"):
            if "nr_class" not in header:
                raise SeqimpError(f"{where}: {key} before nr_class")
            classes = header["nr_class"]
            want = classes if key in ("label", "nr_sv") else classes * (classes - 1) // 2
            if len(values) != want:
                raise SeqimpError(f"{where}: {key} takes {want} value(s) with nr_class {header['nr_class']}, "
                                  f"got {len(values)}")
            kind = int if key in ("label", "nr_sv") else float
            header[key] = [_number(v, kind, where, key) for v in values]
        else:
            raise SeqimpError(f"{where}: unknown header line {key!r}")
        where_of[key] = where
    else:
        raise SeqimpError(f"{name}, line {no + 1}: the file ends before the SV line (cut short, or not an "
                          "LS-GKM model file)")
    for key in ("kernel_type", "L", "k", "d", "nr_class", "total_sv", "rho"):
        if key not in header:
            raise SeqimpError(f"{name}, line {no}: no {key} line before SV")
    if header["nr_class"] != 2:
        raise SeqimpError(f"{where_of['nr_class']}: nr_class {header['nr_class']}; only two-class models "
                          "(gkmtrain's) are read")
    L, k, d = header["L"], header["k"], header["d"]
    if not MIN_L <= L <= MAX_L:
        raise SeqimpError(f"{where_of['L']}: L {L} is outside LS-GKM's range 2..12")
    if not 1 <= k <= L:
        raise SeqimpError(f"{where_of['k']}: k {k} is outside 1..L ({L})")
    if not 0 <= d <= L - k:
        raise SeqimpError(f"{where_of['d']}: d {d} is outside 0..L-k ({L - k})")
    if header.get("norc", 0) not in (0, 1):
        raise SeqimpError(f"{where_of['norc']}: norc {header['norc']} is neither 0 nor 1")
    t = KERNEL_NAMES.index(header["kernel_type"])
    if t in RBF_TYPES and "gamma" not in header:
        raise SeqimpError(f"{name}, line {no}: the {header['kernel_type']} kernel needs a gamma line before SV")
    if t in WEIGHTED_TYPES:
        for key in ("M", "H"):
            if key not in header:
                raise SeqimpError(f"{name}, line {no}: the {header['kernel_type']} kernel needs an {key} line "
                                  "before SV")
        if not 1 <= header["M"] <= 255:
            raise SeqimpError(f"{where_of['M']}: M {header['M']} is outside 1..255")
        if header["H"] <= 0:
            raise SeqimpError(f"{where_of['H']}: H {header['H']} is not positive")
    total = header["total_sv"]
    if total < 0:
        raise SeqimpError(f"{where_of['total_sv']}: total_sv {total} is negative")
    if "nr_sv" in header and sum(header["nr_sv"]) != total:
        raise SeqimpError(f"{where_of['nr_sv']}: nr_sv adds up to {sum(header['nr_sv'])}, total_sv is {total}")
    seqs, coef = [], []
    last = no
    for no in range(last + 1, len(lines) + 1):
        words = lines[no - 1].split()
        where = f"{name}, line {no}"
        if len(seqs) == total:
            if words:
                raise SeqimpError(f"{where}: more support vectors than total_sv {total}")
            continue
        if len(words) != 2:
            got = "an empty line" if not words else f"{len(words)} words"
            raise SeqimpError(f"{where}: support vector {len(seqs) + 1} of {total} needs a coefficient and a "
                              f"sequence, got {got}")
        coef.append(_number(words[0], float, where, "coefficient"))
        if len(words[1]) < L:
            raise SeqimpError(f"{where}: support vector {len(seqs) + 1} has length {len(words[1])}, shorter than L={L}")
        seqs.append(words[1])
    if len(seqs) < total:
        raise SeqimpError(f"{name}, line {len(lines) + 1}: the file ends after {len(seqs)} of total_sv {total} "
                          "support vectors (cut short)")
    return LSGKMModel(header["kernel_type"], L, k, d, seqs, np.array(coef), header["rho"][0],
                      reverse_complement=header.get("norc", 0) == 0, gamma=header.get("gamma"), M=header.get("M"),
                      H=header.get("H"), svm_type=header.get("svm_type", "c_svc"),
                      labels=tuple(header.get("label", (1, -1))), path=name)


# --- writing ------------------------------------------------------------------------------


def _num(value) -> str:
    """The shortest text that reads back as the same float64 (LS-GKM reads it with strtod)."""
    return repr(float(value))


def _header(model, n_pos, n_neg) -> list:
    lines = [f"svm_type {model.svm_type}", f"kernel_type {model.kernel}", f"L {model.l}", f"k {model.k}",
             f"d {model.d}", f"norc {0 if model.reverse_complement else 1}"]
    if model.t in RBF_TYPES:
        lines.append(f"gamma {_num(model.gamma)}")
    if model.t in WEIGHTED_TYPES:
        lines += [f"M {model.M}", f"H {_num(model.H)}"]
    lines += ["nr_class 2", f"total_sv {model.n_support}", f"rho {_num(model.rho)}"]
    if model.svm_type in ("c_svc", "nu_svc"):  # classifiers: the labels and each one's support vectors
        lines += [f"label {model.labels[0]} {model.labels[1]}", f"nr_sv {n_pos} {n_neg}"]
    return lines + ["SV"]


def write_lsgkm_model(path, model, sequences=None) -> LSGKMModel:
    """Write a model as an LS-GKM model file that ``gkmpredict`` reads (gzip-compressed when
    ``path`` ends in ``.gz``, as ``gkmtrain -z`` writes).

    Parameters
    ----------
    path : str or path-like
    model : LSGKMModel or fitted GKMClassifier
        A GKMClassifier becomes the ``gkm_cnt`` kernel with ``d = l - k`` (every shared gapped
        k-mer counted), ``norc`` as its ``reverse_complement``, ``rho = -intercept_``, and label 1
        for ``classes_[1]`` (:func:`~seqimp.kernels.gkm._lsgkm_export.lsgkm_from_gkm`). It must be
        normalised (LS-GKM's kernels are) and have ``word_length <= 12``.
    sequences : sequence of str, codes of shape (n, L) or SequenceSet, optional
        With a GKMClassifier: the n training sequences it was fitted on, in the order of its
        ``dual_coef_``; those with a non-zero dual coefficient are the support vectors. Without
        them (a model read by :func:`~seqimp.kernels.gkm._file.load_gkm` keeps no dual variables)
        the support vectors are l-mers that give the same weights (``word_length <= 10``).

    Returns
    -------
    LSGKMModel
        The model written (for a GKMClassifier: checked to score a sample of sequences as the
        GKMClassifier does).

    Raises
    ------
    SeqimpError
        A model LS-GKM cannot express, sequences that do not match ``dual_coef_``, a support
        vector longer than 2,047 letters (LS-GKM's limit), a path that cannot be written.
    """
    made = not isinstance(model, LSGKMModel)
    if made:
        model = lsgkm_from_gkm(model, sequences)
    elif sequences is not None:
        raise SeqimpError("write_lsgkm_model: sequences go with a GKMClassifier; an LSGKMModel has its support "
                          "vectors")
    long_ = [i for i, s in enumerate(model.support_vectors) if len(s) > LSGKM_MAX_LENGTH]
    if long_:
        raise SeqimpError(f"support vector {long_[0]} has {len(model.support_vectors[long_[0]])} letters; LS-GKM "
                          f"reads sequences of at most {LSGKM_MAX_LENGTH}")
    name = os.fspath(path)
    positive = model.dual_coef > 0
    order = np.r_[np.flatnonzero(positive), np.flatnonzero(~positive)]  # label[0]'s support vectors first
    body = [f"{_num(model.dual_coef[i])} {model.support_vectors[i]}" for i in order]
    text = "\n".join(_header(model, int(positive.sum()), int((~positive).sum())) + body) + "\n"
    data = text.encode("latin-1", "replace")
    try:
        if name.endswith(".gz"):  # no name or time in the gzip header: the same model, the same bytes
            with open(name, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as fh:
                fh.write(data)
        else:
            with open(name, "wb") as fh:
                fh.write(data)
    except OSError as exc:
        raise SeqimpError(f"{name}: cannot write the model ({exc.strerror or exc})") from None
    if made:
        model.path = name
    return model
