"""Records of any lengths padded to one length with shuffles of themselves
(:func:`seqimp.io._any_length.pad_records`): a site that reaches into a record's padding is not
the record's own, and is left out of the sites a search reports (:func:`drop_sites_in_padding`)."""

from __future__ import annotations

__all__ = ["drop_sites_in_padding"]


def drop_sites_in_padding(run, record_lengths):
    """Leave out of ``run.sites`` the sites that end past their record's own length, and record
    the records' lengths and how many sites were left out (``run.parameters["padded"]``).

    Parameters
    ----------
    run : MotifRun
        Its ``sites`` (``sequence``: the 0-based row of the positive; ``position``: 1-based) and
        ``motifs`` (their widths).
    record_lengths : ndarray of shape (n_positive,), int
        Each positive record's length before padding (``PaddedSequences.record_lengths``).

    Returns
    -------
    MotifRun
        ``run``, changed in place.
    """
    inside = []
    if run.sites is not None and len(run.sites):
        width = {m.name: m.length for m in run.motifs}
        ends = run.sites["position"].to_numpy() + run.sites["motif"].map(width).to_numpy() - 1
        inside = ends <= record_lengths[run.sites["sequence"].to_numpy()]
        run.sites = run.sites[inside].reset_index(drop=True)
    run.parameters["padded"] = {"positive_lengths": [int(record_lengths.min()), int(record_lengths.max())],
                                "sites_in_padding": int(len(inside) - sum(inside))}
    return run
