"""The exceptions of the package (documented in docs/python.md).

Every failure the library reports is one of these, by the C API's code:
InputError (exit code 2 of the command), FileError (1), SolverError (3),
CancelledError; an argument of the wrong type is a TypeError naming it."""


class Error(Exception):
    """Base of every stickslip error; `code` is the C API's stsl_rc."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class InputError(Error, ValueError):
    """A bad configuration, key, value, argument or input file (stickslip
    exit code 2): a missing file, a directory, a file that is not a
    stickslip result, an output that would replace an input."""


class FileError(Error, OSError):
    """A file could not be written or read on the way (exit code 1)."""


class SolverError(Error, RuntimeError):
    """A run failed on the way (exit code 3); `result` holds what it reached."""

    def __init__(self, message, code=None, result=None):
        super().__init__(message, code)
        self.result = result


class CancelledError(Error):
    """A run or sweep stopped by its Cancel (or Ctrl-C during a sweep);
    `result` holds what it reached (a Result, or the Sweep of the variants
    that ran)."""

    def __init__(self, message, code=None, result=None):
        super().__init__(message, code)
        self.result = result
