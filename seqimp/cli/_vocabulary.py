"""One name per concept on the command line (docs/cli/README.md, "One vocabulary").

Every command that takes known motifs takes them as ``--db`` (with ``--db-format``), a saved
model as ``--model-file``, the kind of model to train as ``--model``, the site threshold of a
scan as ``--site-pvalue``, the strands as ``--strand {both,given}`` and the background as
``--background`` with the words ``uniform``, ``negative`` and ``all``. The spellings of earlier
releases still work: :func:`rename_old_options` (option names) and :class:`Choice` (values) map
them to the new ones and record one line per old spelling, which :func:`warn_old_spellings`
writes as ``seqimp: warning:`` once the log is set up.
"""

from __future__ import annotations

import argparse

__all__ = ["Choice", "ModelKind", "OLD_OPTIONS", "rename_old_options", "warn_old_spellings", "old_spellings",
           "STRAND_HELP",
           "MAX_MEMORY_HELP", "add_strand_option", "add_site_pvalue_option", "allowed_values"]

#: ``--max-memory``'s default, in the same words for every command that takes it.
MAX_MEMORY_HELP = "default: half the RAM available now for a POIM, all of it for a fit"

#: ``--strand``: either strand (a motif and its reverse complement are one motif) or the given one.
STRAND_HELP = "both: sites on either strand, a motif and its reverse complement one motif; given: that strand only"


def _note(namespace, old: str, line: str) -> None:
    """Record the warning of an old spelling on the parsed arguments (one line per old spelling)."""
    notes = dict(getattr(namespace, "_old_spellings", None) or {})
    notes.setdefault(old, line)
    setattr(namespace, "_old_spellings", notes)


def old_spellings(args) -> list:
    """The warning lines of the old spellings on ``args``, in the order met."""
    return list((getattr(args, "_old_spellings", None) or {}).values())


def warn_old_spellings(args, log, renamed=()) -> None:
    """Each old spelling's line (``renamed``: those of :func:`rename_old_options`, then the values'),
    once, as ``seqimp: warning: ...`` (shown under ``-q`` too)."""
    for line in [*renamed, *old_spellings(args)]:
        log(f"seqimp: warning: {line}", always=True)


#: Options renamed: ``{command: {old: new}}``; :func:`rename_old_options` rewrites them before parsing,
#: so a renamed option keeps everything of the new one (required, exclusive groups, usage).
OLD_OPTIONS = {
    "scan": {"--motifs": "--db", "--thresh": "--site-pvalue"},
}


def rename_old_options(argv, command) -> tuple[list, list]:
    """``argv`` with the old option names of ``command`` (:data:`OLD_OPTIONS`, also as ``--old=value``)
    replaced by the new ones, and one warning line per old name given."""
    renames = OLD_OPTIONS.get(command, {})
    out, lines = [], {}
    for word in argv:
        name, eq, value = word.partition("=")
        if name in renames and word != "--":
            lines.setdefault(name, f"{name} is now {renames[name]}; the old spelling will be removed")
            word = renames[name] + eq + value
        out.append(word)
    return out, list(lines.values())


class Choice(argparse.Action):
    """A choice among ``allowed`` (shown in ``--help``), which also takes the old values of
    ``old_values`` (``{old: new}``, not shown) with one warning each."""

    def __init__(self, option_strings, dest, allowed=(), old_values=None, **kwargs):
        self.allowed = tuple(allowed)
        self.old_values = dict(old_values or {})
        kwargs.setdefault("metavar", "{" + ",".join(self.allowed) + "}")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, value, option_string=None):
        if value in self.old_values:
            new = self.old_values[value]
            _note(namespace, f"{option_string} {value}",
                  f"{option_string} {value} is now {option_string} {new}; the old value will be removed")
            value = new
        elif value not in self.allowed:
            raise argparse.ArgumentError(self, f"invalid choice: {value!r} (choose from "
                                               f"{', '.join(self.allowed)})")
        setattr(namespace, self.dest, value)


class ModelKind(Choice):
    """``--model KIND``: the kind of model to train. A value that is no kind is the old spelling of
    ``--model-file PATH`` (a saved model), taken as that with one warning."""

    def __call__(self, parser, namespace, value, option_string=None):
        if value in self.allowed:
            setattr(namespace, self.dest, value)
            return
        _note(namespace, option_string, f"{option_string} {value}: a saved model is now given as --model-file "
                                        f"{value} (--model takes a kind: {', '.join(self.allowed)}); the old "
                                        "spelling will be removed")
        setattr(namespace, "model_file", value)


def allowed_values(action):
    """The values ``--help`` offers for an option: a :class:`Choice`'s ``allowed``, else argparse's
    ``choices`` (None for a free value)."""
    return getattr(action, "allowed", None) or action.choices


def add_strand_option(group, *, default, what="sites", extra=""):
    """``--strand {both,given}``; ``default`` None means: both for DNA, given for RNA (resolved by the command)."""
    from ._options import details

    shown = "both for DNA, given for RNA" if default is None else default
    return details(group.add_argument("--strand", action=Choice, allowed=("both", "given"), default=default,
                                      help=f"strands of the {what}: both or given (default {shown}){extra}"),
                   f"{STRAND_HELP}.")


def add_site_pvalue_option(group, *, help_text):
    """``--site-pvalue P`` (default 1e-4): the exact p-value a window needs to be a site."""
    from ._options import positive_float

    return group.add_argument("--site-pvalue", type=positive_float, default=1e-4, metavar="P",
                              help=f"{help_text} (default 1e-4)")


def add_bfile_option(group, *, scored):
    """``--bfile FILE``: a Markov background of order 0..5 in MEME's format; ``scored`` says what is
    exact under it (the p-values, the site p-value)."""
    from ._options import details

    return details(group.add_argument("--bfile", metavar="FILE", default=None,
                                      help="a Markov background (order 0..5) in MEME's format, e.g. a 'seqimp "
                                           "motifs' background.txt (replaces --background)"),
                   "MEME's background format, as fasta-get-markov writes it (a 'seqimp motifs' folder's "
                   f"background.txt is one): scores are log-likelihood ratios against it, {scored} exact under it.")


def chosen_background(background, bfile):
    """The background a scan or enrichment scores against: the Markov background of the file
    ``bfile`` where one is given (read now: a bad file fails before the output folder), else the
    ``--background`` word."""
    if bfile is None:
        return background
    from ..background._site_background import read_bfile

    return read_bfile(bfile)
