"""Match logos: the query's compared columns above the best database motif, the title whole."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from seqimp.motifs import Motif  # noqa: E402
from seqimp.report._match_logos import match_figure  # noqa: E402

ROW = {"query": "seqimp-1", "target": "MA9999.1_a_rather_long_database_identifier", "significant": True,
       "query_from": 2, "query_to": 5, "offset": 1, "strand": "+", "q_value": 0.000123456,
       "calibrated_q": 0.00456789}


@pytest.mark.parametrize("calibrated_q", [0.00456789, math.nan])
def test_match_logo_title_is_whole_and_inside_the_figure(calibrated_q):
    query = Motif.from_consensus("seqimp-1", "GTACG", purity=0.9)  # a narrow motif: a narrow figure
    target = Motif.from_consensus(ROW["target"], "AACGT", purity=0.9)
    ax = match_figure(query, target, dict(ROW, calibrated_q=calibrated_q))
    fig = ax[0].figure
    title = ax[0].get_title()
    want = f"seqimp-1 (columns 2-5)\nbest match {ROW['target']}\nq = 0.00012"
    want += ", calibrated q = 0.0046" if calibrated_q == calibrated_q else ""
    assert title == want  # nothing elided, no "calibrated q = nan"
    fig.canvas.draw()
    box, page = ax[0].title.get_window_extent(), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, (box, page)
    plt.close(fig)
