"""hsr.templating: the templates compiled ahead (templates/compiled/, written by `hsr
compile` of the bundled specs) are current, render what the templates' text renders,
and give way to the text where a template changed since or Jinja is another minor version."""

import json

import jinja2

from hsr import templating
from hsr.check import check
from hsr.emit import emit
from hsr.parse import parse
from hsr.plan import plan


def _fresh(monkeypatch):
    """A new environment (the process keeps one), on an empty template cache."""
    monkeypatch.setattr(templating, "_environments", [])
    monkeypatch.setattr(templating, "_bytecode_cache", lambda: None)
    return templating.environment()


def test_the_shipped_modules_are_those_of_the_templates_now():
    folder = templating.ahead_folder()
    files = templating.compiled_ahead()
    assert len(files) == len(templating.template_names()) + 1 > 10
    stale = [n for n, text in files.items() if (folder / n).read_text() != text]
    assert not stale, f"run `python -m hsr.cli compile ops/*.hsr`: {stale}"


def test_a_template_loads_from_its_module_where_current_else_from_its_text(monkeypatch):
    """A spec's module rendered from the modules compiled ahead is the one rendered from the
    templates' text; a template whose digest differs (edited since) comes from its text."""
    spec = "Q[i, s, d]: float\nD[j, t, d]: float\nscore[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n"
    program = plan(check(parse(spec, "gaussian.hsr")))
    renders, loaded = [], []
    for edited in ((), ("module.py.jinja",), tuple(templating.template_names())):
        env = _fresh(monkeypatch)
        for name in edited:
            env.loader.digests[name] = "0" * 64
        for which in ("ahead", "text"):
            real = getattr(env.loader, which).load
            monkeypatch.setattr(getattr(env.loader, which), "load", lambda e, n, g=None, real=real, which=which:
                                loaded.append((which, n)) or real(e, n, g))
        loaded.clear()
        renders.append(emit(program, spec, "gaussian.hsr"))
        assert {n for w, n in loaded if w == "text"} == set(edited) and len(loaded) == len(templating.template_names())
    assert renders[0] == renders[1] == renders[2]


def test_another_jinja_minor_version_compiles_the_text(monkeypatch):
    monkeypatch.setattr(jinja2, "__version__", "9.0.0")
    env = _fresh(monkeypatch)
    assert env.loader.ahead is None and env.get_template("select_reduce/common.py.jinja")


def test_the_index_names_jinja_and_every_template():
    index = json.loads(templating.compiled_ahead()["index.json"])
    assert index["jinja2"] == ".".join(jinja2.__version__.split(".")[:2])
    assert sorted(index["templates"]) == templating.template_names()
