"""Errors that hsr raises: every one names where the problem is."""

from __future__ import annotations


def source_lines(source: str) -> list[str]:
    """The spec's lines as the parser counts them: split at "\n" only (a form
    feed or a lone "\r" inside a comment does not start a line)."""
    return [line[:-1] if line.endswith("\r") else line for line in source.split("\n")]


class HsrError(Exception):
    """Base class of every error hsr raises on purpose."""


class SpecError(HsrError):
    """A spec that does not parse, check or plan.

    The message reads ``file:line:col: message``, then the source line, a caret
    under the column, and a hint, so an editor can jump to it and a person can
    see it.
    """

    def __init__(self, message: str, *, source: str, filename: str = "<spec>",
                 line: int = 1, col: int = 1, hint: str | None = None):
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.hint = hint
        lines = source_lines(source)
        self.source_line = lines[line - 1] if 0 < line <= len(lines) else ""
        text = f"{filename}:{line}:{col}: {message}\n    {self.source_line}\n    {' ' * (col - 1)}^"
        if hint:
            text += f"\nhint: {hint}"
        super().__init__(text)


class PlanError(SpecError):
    """A valid spec that the planner cannot turn into a kernel; the message
    names the part of the hard-selection normal form that fails."""


class TensorError(HsrError, ValueError):
    """A tensor argument that does not fit the spec: the message names the
    argument and, where it applies, the spec's axis. Sizes given by axis name
    (``op.explain(sizes)``, ``hsr explain --shapes``) that name an axis the spec
    does not have raise it too, naming the spec's axes."""
