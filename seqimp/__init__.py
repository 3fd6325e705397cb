"""seqimp: which positional oligomers does a trained sequence model rely on?

Weighted-degree string kernels, exact unfolding to positional k-mer weights,
Markov backgrounds, exact POIM/FIRM, sampled importance for any scorer,
motifs, and tabular feature-importance methods of the same family.

Public names are imported lazily from the module that owns them (see
``docs/architecture.md``), so ``import seqimp`` is cheap and does not compile
numba kernels.
"""

from ._lazy import lazy_exports

__version__ = "0.1.0"

# public name -> owning submodule (relative to the package)
_EXPORTS = {
    # read and encode
    "SeqimpError": "errors",
    "Alphabet": "alphabet",
    "DNA": "alphabet",
    "RNA": "alphabet",
    "PROTEIN": "alphabet",
    "get_alphabet": "alphabet",
    "encode": "alphabet",
    "decode": "alphabet",
    "kmer_index": "alphabet",
    "kmer_string": "alphabet",
    "window_indices": "alphabet",
    "SequenceSet": "fasta",
    "read_fasta": "fasta",
    "write_fasta": "fasta",
    "Table": "table",
    # model
    "PositionalWeights": "weights",
    "wd_kernel": "kernels",
    "wd_features": "kernels",
    "WDClassifier": "models",
    "WDRegressor": "models",
    # background
    "MarkovBackground": "background",
    # importance
    "poim": "poim",
    "POIMResult": "poim",
    "poim_sampled": "sampled",
    "ism": "sampled",
    "position_summary": "sampled",
    "load_scorer": "sampled",
    "load_sklearn_model": "sampled",
    "sklearn_scorer": "sampled",
}

_SUBMODULES = {"datasets", "plot", "motifs", "tabular", "cli"}

__all__ = sorted(_EXPORTS) + ["__version__"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
