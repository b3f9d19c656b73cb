"""The Jinja environment that emit renders with, and the templates compiled ahead.

Compiling the thirteen templates is about half of a new spec's `hsr.compile` on a
fresh machine (bench/NOTES.md, first results). `hsr compile` of the bundled specs
also writes each template's compiled module under templates/compiled/ with the
digest of the text it came from; a process then loads a template from its module
where the digest and Jinja's minor version match, and compiles the text otherwise
(a template edited since, another Jinja), keeping that in the on-disk cache.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import jinja2

from .basics import cache_dir

OPTIONS = dict(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
               undefined=jinja2.StrictUndefined)
AHEAD = "compiled"  # the folder of the templates compiled ahead, in hsr.templates
_environments: list = []


def environment() -> jinja2.Environment:
    """One Jinja environment a process, so that each template is compiled (or loaded) once."""
    if not _environments:
        _environments.append(jinja2.Environment(loader=_AheadLoader(), bytecode_cache=_bytecode_cache(),
                                                auto_reload=False, **OPTIONS))
    return _environments[0]


def template_text(name: str) -> str:
    """A template's text: "select_reduce/forward.py.jinja", a folder's, a segment at a time."""
    node = resources.files("hsr.templates")
    for part in name.split("/"):
        node = node.joinpath(part)
    return node.read_text()


def template_names() -> list[str]:
    """Every template of hsr.templates, sorted."""
    root = resources.files("hsr.templates")
    names = [p.name for p in root.iterdir() if p.name.endswith(".jinja")]
    names += [f"{d.name}/{p.name}" for d in root.iterdir() if d.is_dir() and d.name != AHEAD
              for p in d.iterdir() if p.name.endswith(".jinja")]
    return sorted(names)


def ahead_folder() -> Path:
    """templates/compiled/: where the templates compiled ahead are written and read."""
    return Path(str(resources.files("hsr.templates").joinpath(AHEAD)))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _jinja_minor() -> str:
    return ".".join(jinja2.__version__.split(".")[:2])


def compiled_ahead() -> dict[str, str]:
    """{file name: Python source} of every template compiled for ModuleLoader, and index.json."""
    env = jinja2.Environment(**OPTIONS)
    files, digests = {}, {}
    for name in template_names():
        text = template_text(name)
        digests[name] = _digest(text)
        # the template's name as its filename: the same bytes on every machine
        code = env.compile(text, name, name, raw=True, defer_init=True)
        files[jinja2.ModuleLoader.get_module_filename(name)] = code
    files["index.json"] = json.dumps({"jinja2": _jinja_minor(), "templates": digests}, indent=1) + "\n"
    return files


class _AheadLoader(jinja2.BaseLoader):
    """A template from its module compiled ahead where it is current; else from its text."""

    def __init__(self):
        folder = ahead_folder()
        index = {}
        try:
            index = json.loads((folder / "index.json").read_text())
        except (OSError, ValueError):
            pass
        self.digests = index.get("templates", {}) if index.get("jinja2") == _jinja_minor() else {}
        self.ahead = jinja2.ModuleLoader(str(folder)) if self.digests else None
        self.text = jinja2.FunctionLoader(template_text)

    def get_source(self, environment, name):
        return self.text.get_source(environment, name)

    def load(self, environment, name, globals=None):
        if self.ahead is not None and self.digests.get(name) == _digest(template_text(name)):
            return self.ahead.load(environment, name, globals)
        return self.text.load(environment, name, globals)


def _bytecode_cache():
    """Compiled templates under <cache>/templates, or none where it cannot be made."""
    folder = cache_dir() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))
