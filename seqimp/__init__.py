"""seqimp: which positional oligomers does a trained sequence model rely on?

Weighted-degree string kernels, exact unfolding to positional k-mer weights,
Markov backgrounds, exact POIM/FIRM, sampled importance for any scorer,
motifs, and tabular feature-importance methods of the same family.

The package is laid out by pipeline stage (``docs/architecture.md``)::

    io -> kernels -> training -> background -> importance -> motifs -> plot -> report -> pipeline -> cli
                                   tabular (beside the sequence stages)

The options of every run are the dataclasses of :mod:`seqimp.options`.

The names below are imported lazily from the stage package that owns them, so
``import seqimp`` is cheap and compiles no numba code.
"""

import logging
from importlib import import_module

# library use logs nothing unless the application configures the "seqimp" logger (the CLI does)
logging.getLogger(__name__).addHandler(logging.NullHandler())

# numba's thread pool no larger than the cores this process may use (cgroup quota, OMP_NUM_THREADS;
# seqimp/_utils/cores.py): set before numba is imported, unless the user set NUMBA_NUM_THREADS
from ._utils.cores import limit_numba_threads as _limit_numba_threads  # noqa: E402

_limit_numba_threads()

__version__ = "0.2.0"

# public name -> stage package that owns it
_EXPORTS = {
    # read and encode
    "SeqimpError": "errors",
    "Alphabet": "io",
    "DNA": "io",
    "RNA": "io",
    "PROTEIN": "io",
    "get_alphabet": "io",
    "encode": "io",
    "decode": "io",
    "kmer_index": "io",
    "kmer_string": "io",
    "window_indices": "io",
    "SequenceSet": "io",
    "read_fasta": "io",
    "write_fasta": "io",
    "read_bed": "io",
    "extract_windows": "io",
    "read_sequence_table": "io",
    "position_labels": "io",
    # model
    "PositionalWeights": "kernels",
    "wd_kernel": "kernels",
    "wd_features": "kernels",
    "WDClassifier": "kernels",
    "WDRegressor": "kernels",
    "GKMClassifier": "kernels",
    "gkm_kernel": "kernels",
    "spectrum_kernel": "kernels",
    # background
    "MarkovBackground": "background",
    # importance
    "poim": "importance",
    "POIMResult": "importance",
    "StreamedPOIM": "importance",
    "load_poim": "importance",
    "poim_sampled": "importance",
    "ism": "importance",
    "variant_effects": "importance",
    "position_summary": "importance",
    # scorer adapters: seqimp.scorers only
    # motifs
    "read_motifs": "motifs",
    "scan_sequences": "motifs",
    "enrich_motifs": "motifs",
    # motifs of a POIM or a trained model, in a notebook
    "find_motifs": "pipeline",
}

_SUBPACKAGES = {"io", "kernels", "training", "background", "importance", "motifs", "plot", "report", "pipeline",
                "tabular", "cli",
                "datasets", "errors", "options", "scorers"}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBPACKAGES:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | _SUBPACKAGES)
