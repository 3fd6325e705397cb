"""The gapped-k-mer (gkm) model in one place: its kernel and the spectrum kernel (``_kernel``),
the scikit-learn estimator :class:`~seqimp.kernels.GKMClassifier` (``_estimator``), its dual
coordinate descent (``_dcd``), its l-mer scores (``_lmers``) and its model file (``_file``).
Public names are exported by :mod:`seqimp.kernels`.
"""
