"""Progress of long runs, sweeps and studies: a caller's callback, or a
plain text bar (no dependency) when the output is a terminal or a notebook.

The `progress` argument of ss.run, ss.sweep and ss.study:
    None (default)  a bar on stdout when stdout is a terminal or the code
                    runs in a Jupyter notebook; nothing otherwise
    True / False    a bar always / never
    a callable      called as progress(done, total) in the caller's thread:
                    for a run the time reached and t_end, for a sweep or a
                    study the variants done and their number
"""
import sys

from . import _args

WIDTH = 30  # characters of the bar


def in_notebook():
    """True inside a Jupyter kernel (IPython's ZMQ shell)."""
    shell = sys.modules.get("IPython")
    try:
        ip = shell.get_ipython() if shell else None
    except Exception:  # an IPython too old or half-imported: no notebook
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _interactive(stream):
    try:
        return stream.isatty() or in_notebook()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


class Bar:
    """A one-line text bar redrawn in place (carriage return), only when
    what it shows changes."""

    def __init__(self, label, unit, stream=None):
        self.label, self.unit = label, unit
        self.stream = stream if stream is not None else sys.stdout
        self.shown = None

    def __call__(self, done, total, extra=""):
        frac = min(max(done / total, 0.0), 1.0) if total > 0 else 1.0
        fill = int(round(frac * WIDTH))
        if self.unit == "variants":
            count = f"{int(done)}/{int(total)} variants"
        else:
            count = f"t = {done:.6g} of {total:.6g}{(' ' + self.unit) if self.unit else ''}"
        line = f"{self.label} [{'#' * fill}{'-' * (WIDTH - fill)}] {100 * frac:3.0f}%  {count}{extra}"
        if line != self.shown:
            self.stream.write("\r" + line)
            self.stream.flush()
            self.shown = line

    def close(self):
        if self.shown is not None:
            self.stream.write("\n")
            self.stream.flush()


class Reporter:
    """What a function does with its `progress` argument: report(done,
    total[, failed]) and close() at the end."""

    def __init__(self, progress, label, unit=""):
        if progress is None:
            progress = _interactive(sys.stdout)
        if not (progress is True or progress is False or callable(progress)):
            raise TypeError("progress: expected None, True, False or a callable progress(done, total), "
                            f"got {_args.type_name(progress)}")
        self.callback = progress if callable(progress) else None
        self.bar = Bar(label, unit) if progress is True else None

    @property
    def active(self):
        return self.callback is not None or self.bar is not None

    def report(self, done, total, failed=0):
        if self.callback is not None:
            self.callback(done, total)
        elif self.bar is not None:
            self.bar(done, total, f", {failed} failed" if failed else "")

    def close(self):
        if self.bar is not None:
            self.bar.close()
