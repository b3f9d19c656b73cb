"""Stage 5, load: write generated source to a content-addressed cache, import
it, and wrap it as an Op.

Cache entries live under ``HSR_CACHE_DIR`` (default ``~/.cache/hsr``), keyed
by the spec's exact text and file name (the generated module quotes its lines),
the hsr and Triton versions, the templates and the compiler's own files. Writes go to
a temporary file first and are renamed into place, so concurrent processes
never see half a file; an entry whose checksum does not match (truncated,
corrupted) is rewritten. A cache that cannot be written (read-only, full) still
serves the entries it holds; new ones go to a private temporary directory, with
a warning.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path

from . import __version__
from .errors import SpecError
from .op import Op
from .basics import cache_dir

_CHECKSUM = "# hsr-checksum: "


def bundled_spec_dir() -> Path:
    """Where the bundled specs (ops/*.hsr) live, found without importing the ops."""
    return Path(importlib.util.find_spec(f"{__package__}.ops").submodule_search_locations[0])


def bundled_names() -> list[str]:
    """The bundled specs' names, sorted."""
    return sorted(p.stem for p in bundled_spec_dir().glob("*.hsr"))


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, bundled_names(), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def spec_path(name: str) -> Path:
    """The file of a bundled spec by name ("maxsim", "chamfer_point", ...); a
    ValueError naming the bundled specs where there is none of that name."""
    path = bundled_spec_dir() / f"{name}.hsr"
    if not path.is_file():
        raise ValueError(f"no bundled spec {name!r}{_did_you_mean(str(name)) or ';'} "
                         f"bundled: {', '.join(bundled_names())}")
    return path


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def is_word(text: str) -> bool:
    """A single identifier-like word: never spec text (a spec declares its inputs
    with brackets), so a bundled spec's name, or a misspelled one."""
    return _WORD.fullmatch(text.strip()) is not None


def unknown_bundled(name: str) -> SpecError:
    """The error of a single word that names no bundled spec: the closest names, and all of them."""
    name = name.strip()
    return SpecError(f"unknown bundled spec {name!r}{_did_you_mean(name) or ';'} bundled specs: "
                     f"{', '.join(bundled_names())}", source=name, filename="<spec>",
                     hint="give a bundled spec's name, a path to a .hsr file, or spec text "
                          "(declarations and a definition, as Q[i, s, d]: float ...)")


def read_spec(spec) -> tuple[str, str]:
    """(source, filename) from a path, from spec text, or from a bundled spec's name;
    a single word that names no bundled spec is a SpecError naming the close ones."""
    text = str(spec)
    if isinstance(spec, Path) or ("\n" not in text and text.endswith(".hsr")):
        path = Path(spec)
        return path.read_text(), path.name
    if "\n" not in text and text.isidentifier() and (bundled_spec_dir() / f"{text}.hsr").is_file():
        path = bundled_spec_dir() / f"{text}.hsr"
        return path.read_text(), path.name
    if is_word(text):
        raise unknown_bundled(text)
    return text, "<spec>"


def reference_op(spec):
    """hsr.reference_evaluator: the float64 reference evaluator of a checked spec, as a callable."""
    from .check import check
    from .parse import parse
    from .reference import evaluate

    program = check(parse(*read_spec(spec)))

    def run(*args, **kwargs):
        return evaluate(program, *args, **kwargs)

    run.program = program
    run.__doc__ = f"The float64 reference evaluator of {program.definition.name}."
    return run


def cache_key(source: str, filename: str = "<spec>") -> str:
    """The exact spec text and file name (the module quotes both, with line
    numbers), the hsr and Triton versions, the templates and the compiler's files."""
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:  # pragma: no cover - triton is a dependency on Linux
        triton_version = "none"
    text = f"{filename}\n{source}\nhsr {__version__}\ntriton {triton_version}\n{_compiler_digest()}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


_digest: list = []


def _compiler_digest() -> str:
    """A hash of the templates and of the compiler's own files (its stages, the
    grammar, the runtime constants emit reads), so that editing any of them
    invalidates the cache: within one version, a checkout being worked on would
    otherwise serve modules that an older emit wrote. Once per process."""
    if _digest:
        return _digest[0]
    from importlib import resources

    digest = hashlib.sha256()
    for package, suffixes, folders in (("hsr.templates", (".jinja",), True), ("hsr", (".py", ".lark"), False)):
        for name, entry in _files(resources.files(package), suffixes, folders):
            digest.update(name.encode() + entry.read_bytes())
    _digest.append(digest.hexdigest())
    return _digest[0]


def _files(root, suffixes, folders, prefix=""):
    """(path under root, entry) of root's files whose names end with one of suffixes, by
    name; with folders, those of its folders too (the templates' families: templates/select_reduce/)."""
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_file() and entry.name.endswith(suffixes):
            yield prefix + entry.name, entry
        elif folders and entry.is_dir() and entry.name != "__pycache__":
            yield from _files(entry, suffixes, folders, prefix + entry.name + "/")


# Ops compiled in this process, by (spec text, file name, cache directory): compiling the
# same text again is a dictionary lookup (no parse, plan, hash of the compiler or disk).
_compiled: dict = {}


def compile_spec(path_or_text, cache_dir=None) -> Op:
    source, filename = read_spec(path_or_text)
    memo = (source, filename, str(_cache_root(cache_dir)))
    op = _compiled.get(memo)
    if op is None:
        from . import launcher  # (Triton: imported by the module anyway)

        launcher.warm_triton()  # Triton's first-launch work, while this compiles
        op = _compiled[memo] = _compile(source, filename, cache_dir)
    return op


def _compile(source: str, filename: str, cache_dir) -> Op:
    key = cache_key(source, filename)
    root = _cache_root(cache_dir)
    for path in sorted(root.glob(f"*_{key}.py")) if root.is_dir() else ():
        generated = _read_valid(path)
        if generated is not None:  # cached: parse, check and plan wait until the Op is asked for them
            return Op(None, None, _import(path, f"hsr_cache.{path.stem}"), generated, text=(source, filename))
    from .check import check
    from .emit import emit
    from .parse import parse
    from .plan import plan

    program = check(parse(source, filename))
    kernel_plan = plan(program)
    name = f"{kernel_plan.out}_{key}.py"
    path = _cache_root(cache_dir) / name
    generated = _read_valid(path)
    if generated is None:
        generated = emit(kernel_plan, source, filename)
        try:
            cache_dir_path(path.parent)
            _write_atomic(path, generated)
        except OSError as error:  # a read-only or full cache: this process keeps its own
            path = _private_dir(path.parent, error) / name
            _write_atomic(path, generated)
    module = _import(path, f"hsr_cache.{kernel_plan.out}_{key}")
    return Op(program, kernel_plan, module, generated)


_cache_root = cache_dir  # compile_spec's argument shadows the name


def cache_dir_path(override=None) -> Path:
    path = cache_dir(override)
    path.mkdir(parents=True, exist_ok=True)
    return path


_private: dict = {}


def _private_dir(wanted: Path, error: OSError) -> Path:
    """A temporary directory for this process's entries when the cache cannot
    be written (Triton reads a kernel's source from its file, so the module
    must live in one). Says so once per cache directory."""
    if wanted not in _private:
        _private[wanted] = Path(tempfile.mkdtemp(prefix="hsr-cache-"))
        warnings.warn(f"hsr: cannot write to the cache {wanted} ({error.strerror or error}); compiled ops go to "
                      f"{_private[wanted]} for this process. Set HSR_CACHE_DIR to a writable directory to keep them.",
                      RuntimeWarning, stacklevel=3)
    return _private[wanted]


def _read_valid(path: Path) -> str | None:
    """The cached source without its checksum line, or None if absent or damaged."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    body, sep, tail = text.rpartition(_CHECKSUM)
    if not sep or tail.strip() != hashlib.sha256(body.encode()).hexdigest():
        return None
    return body


def _write_atomic(path: Path, source: str) -> None:
    text = source + _CHECKSUM + hashlib.sha256(source.encode()).hexdigest() + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a shared cache needs others to read
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _import(path: Path, name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
