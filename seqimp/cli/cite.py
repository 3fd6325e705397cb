"""``seqimp cite``: what to cite -- seqimp and the methods a run used."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import __version__
from ._logging import UserError
from ._options import add_quiet

HELP = """\
Print the references to cite: seqimp itself and the published methods it
implements. Without --run, every method, each with what it is used for; with
--run DIR, only those the run in DIR used, read from its summary.json and
motifs.json (the model's kernel, exact or sampled POIM/FIRM, the motif
comparison and the motif database).

examples:
  seqimp cite
  seqimp cite --run demo-results
"""

#: key -> (what it is used for, reference). The references of the methods are those of the papers in
#: the project's sources; the motif database's is the one JASPAR asks users of its 2024 release to cite.
REFERENCES = {
    "wd": ("the weighted-degree string kernel (WD, with shifts: WDS) of the trained model",
           "G. Rätsch, S. Sonnenburg, B. Schölkopf. RASE: recognition of alternatively spliced exons in "
           "C. elegans. Bioinformatics 21(Suppl. 1):i369-i377, 2005."),
    "poim": ("positional oligomer importance matrices (POIMs) of a WD-kernel model",
             "A. Zien, S. Sonnenburg, P. Philips, G. Rätsch. POIMs: positional oligomer importance matrices -- "
             "understanding support vector machine-based signal detectors. Proceedings of the 16th "
             "International Conference on Intelligent Systems for Molecular Biology (ISMB 2008); "
             "Bioinformatics 24(13):i6-i14, 2008."),
    "firm": ("the feature importance ranking measure (FIRM), exact or sampled",
             "A. Zien, N. Krämer, S. Sonnenburg, G. Rätsch. The feature importance ranking measure. "
             "Machine Learning and Knowledge Discovery in Databases (ECML PKDD 2009), Lecture Notes in "
             "Computer Science 5782, 694-709, Springer, 2009."),
    "tomtom": ("the comparison of found motifs with known ones (TOMTOM, as implemented by memelite)",
               "S. Gupta, J. A. Stamatoyannopoulos, T. L. Bailey, W. S. Noble. Quantifying similarity "
               "between motifs. Genome Biology 8:R24, 2007. -- memelite: J. Schreiber, "
               "https://github.com/jmschrei/memelite"),
    "jaspar2024": ("the JASPAR 2024 matrices the motifs were matched against (CC BY 4.0)",
                   "I. Rauluseviciute, R. Riudavets-Puig, R. Blanc-Mathieu, et al. JASPAR 2024: 20th "
                   "anniversary of the open-access database of transcription factor binding profiles. "
                   "Nucleic Acids Research 52(D1):D174-D182, 2024."),
}

SEQIMP = (f"the seqimp developers. seqimp: positional oligomer importance (POIM/FIRM) for sequence models, "
          f"version {__version__}. Software, MIT licence (CITATION.cff in the source tree).")


def register(sub) -> None:
    p = sub.add_parser("cite", help="what to cite: seqimp and the methods a run used", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", metavar="DIR", help="an output folder of seqimp poim, demo or motifs: cite what it used")
    add_quiet(p)
    p.set_defaults(func=run)


def methods_used(folder) -> tuple[list, list]:
    """The keys of :data:`REFERENCES` a run used, and notes (a motif database other than JASPAR 2024),
    from ``folder``'s ``summary.json`` and ``motifs.json``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"--run {folder}: no such folder")
    records = {}
    for name in ("summary.json", "motifs.json"):
        path = folder / name
        if path.is_file():
            try:
                records[name] = json.loads(path.read_text())
            except (OSError, ValueError) as exc:
                raise UserError(f"--run {path}: not a seqimp summary ({exc})") from None
    if not records:
        raise UserError(f"--run {folder}: no summary.json or motifs.json; give the output folder of "
                        "'seqimp poim', 'seqimp demo' or 'seqimp motifs'")
    summary, motifs = records.get("summary.json", {}), records.get("motifs.json", {})
    keys, notes = [], []
    parameters = summary.get("parameters", {})
    if "degree" in parameters or "degree" in parameters.get("model", {}):
        keys.append("wd")
    keys += ["poim", "firm"]  # every run computes both (exact or sampled); motifs are fitted to a POIM
    database = summary.get("motif_database") or motifs.get("parameters", {}).get("database")
    if database:
        keys.append("tomtom")
        release = str(database.get("release", ""))
        if release.upper() == "JASPAR2024":
            keys.append("jaspar2024")
        elif release.upper().startswith("JASPAR"):
            notes.append(f"the motif database was {release}: cite the JASPAR paper of that release")
        elif database.get("file"):
            notes.append(f"the motif database was the file {database['file']}: cite where it came from")
    return keys, notes


def run(args) -> int:
    if args.run:
        keys, notes = methods_used(args.run)
        print(f"To cite the run in {args.run}:")
    else:
        keys, notes = list(REFERENCES), []
        print("To cite seqimp and the methods it implements (seqimp cite --run DIR: only those a run used):")
    print(f"\nseqimp\n  {SEQIMP}")
    for key in keys:
        what, reference = REFERENCES[key]
        print(f"\n{what}\n  {reference}")
    for note in notes:
        print(f"\nnote: {note}")
    return 0
