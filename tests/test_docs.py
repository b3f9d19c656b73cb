"""The user pages: README.md and docs/*.md.

- README.md stays short (at most 300 lines);
- no link leaves the repository, every relative link resolves (its #anchor
  too), and every repository path named in code (`bench/results/...`) exists;
- no development diary: no version tags (v16), session or issue numbers, "work
  period";
- the charts of docs/performance.md are what docs/plots.py draws from the
  committed results;
- the ```python blocks of each page run, in order, in one fresh process (CPU,
  Triton's interpreter, a temporary HSR_CACHE_DIR). A block that needs a GPU, a
  peer package or a download is marked ```python no-run (or with an HTML comment
  <!-- no-run --> on the line before its fence) and is skipped.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

DIARY = [r"\bv\d+[a-z]?\b", r"\bsession \d+", r"\bissue #?\d+", r"\bwork period"]
FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
REPO_DIRS = ("bench/", "docs/", "examples/", "generated/", "hsr/", "ops/", "templates/", "tests/")


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _blocks(text: str):
    """(info string, first line number of the body, body, marked no-run) of each fenced block."""
    lines = text.split("\n")
    n = 0
    while n < len(lines):
        m = FENCE.match(lines[n])
        if not m:
            n += 1
            continue
        fence, info = m.group(2), m.group(3).strip()
        before = next((lines[k].strip() for k in range(n - 1, -1, -1) if lines[k].strip()), "")
        start, n = n + 1, n + 1
        while n < len(lines) and not (lines[n].strip().startswith(fence[0] * len(fence))
                                      and not lines[n].strip().strip(fence[0])):
            n += 1
        yield info, start + 1, "\n".join(lines[start:n]), before == "<!-- no-run -->" or "no-run" in info.split()
        n += 1


def _prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines outside fenced code blocks, code spans blanked."""
    out, inside, fence = [], False, ""
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m and not inside:
            inside, fence = True, m.group(2)
            continue
        if inside:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                inside = False
            continue
        out.append((number, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)))
    return out


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for _number, line in _prose(page.read_text()):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = _slug(m.group(1))
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _links(page: Path):
    text = page.read_text()
    for number, line in _prose(text):
        for m in (*LINK.finditer(line), *HTML_LINK.finditer(line)):
            yield number, m.group(1)


def test_there_are_pages():
    names = {p.name for p in PAGES}
    for page in ("language.md", "ops.md", "integrations.md", "semantics.md", "performance.md",
                 "architecture.md"):
        assert page in names, f"docs/{page} is missing"


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move detail into docs/"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_link_leaves_the_repository(page):
    text = page.read_text()
    bad = [f"{_name(page)}:{n}: {line.strip()}" for n, line in enumerate(text.split("\n"), 1)
           if re.search(r"\b(?:https?|ftp)://|\bwww\.|\.\./shared/|\bmailto:", line)]
    assert not bad, "links that leave the repository:\n" + "\n".join(bad)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_relative_links_resolve(page):
    bad = []
    for number, target in _links(page):
        where = f"{_name(page)}:{number}: {target}"
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
            bad.append(f"{where} (not a relative link)")
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if resolved != ROOT and ROOT not in resolved.parents:
            bad.append(f"{where} (outside the repository)")
        elif not resolved.exists():
            bad.append(f"{where} (no such file)")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            bad.append(f"{where} (no heading #{anchor} in {resolved.relative_to(ROOT)})")
    assert not bad, "broken links:\n" + "\n".join(bad)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_paths_named_in_code_exist(page):
    """A repository path in a code span (a results file, a script, a module) exists."""
    bad = []
    for number, line in enumerate(page.read_text().split("\n"), 1):
        for m in CODE_SPAN.finditer(line):
            span = m.group(2).strip()
            if not span.startswith(REPO_DIRS) or re.search(r"[\s<>{}]", span):
                continue
            if not glob.glob(str(ROOT / span.rstrip("/"))):
                bad.append(f"{_name(page)}:{number}: {span}")
    assert not bad, "paths that do not exist:\n" + "\n".join(bad)


def _without_code_strings(text: str) -> list[tuple[int, str]]:
    """(line number, line) of a page, string literals blanked inside fenced code
    (a model's name such as "org/model-v1" is not a version tag of ours)."""
    prose = dict(_prose(text))
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        if number not in prose:
            line = re.sub(r"\"[^\"]*\"|'[^']*'", '""', line)
        out.append((number, line))
    return out


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_development_diary(page):
    bad = []
    for number, line in _without_code_strings(page.read_text()):
        for pattern in DIARY:
            for m in re.finditer(pattern, line, re.IGNORECASE):
                bad.append(f"{_name(page)}:{number}: {m.group(0)!r} in {line.strip()}")
    assert not bad, "diary words (version tags, session or issue numbers):\n" + "\n".join(bad)


def test_every_page_is_in_the_index():
    index = (DOCS / "README.md").read_text()
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "README.md" and f"({p.name})" not in index]
    assert not missing, f"docs/README.md does not link {missing}"


def test_charts_are_drawn_from_the_committed_results(tmp_path):
    done = subprocess.run([sys.executable, str(DOCS / "plots.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    drawn = sorted(p.name for p in tmp_path.glob("*.svg"))
    assert drawn, "docs/plots.py drew nothing"
    performance = (DOCS / "performance.md").read_text()
    for name in drawn:
        committed = DOCS / "img" / name
        assert committed.exists(), f"docs/img/{name} is missing: run python docs/plots.py"
        assert committed.read_text() == (tmp_path / name).read_text(), \
            f"docs/img/{name} is stale: run python docs/plots.py"
        assert f"(img/{name})" in performance, f"docs/performance.md does not show img/{name}"


RUNNER = r"""
import sys, traceback
blocks = eval(sys.stdin.read())
scope = {"__name__": "__main__"}
for name, line, body in blocks:
    code = compile("\n" * (line - 1) + body, name, "exec")
    try:
        exec(code, scope)
    except BaseException:
        traceback.print_exc()
        print(f"FAILED: the block at {name}:{line}", file=sys.stderr)
        sys.exit(1)
print(f"{len(blocks)} block(s) ran")
"""

RUNNABLE = [p for p in PAGES if any(info.split()[:1] == ["python"] and not skip
                                    for info, _l, _b, skip in _blocks(p.read_text()))]


@pytest.mark.parametrize("page", RUNNABLE, ids=_name)
def test_python_blocks_run(page, tmp_path):
    blocks = [(_name(page), line, body) for info, line, body, skip in _blocks(page.read_text())
              if info.split()[:1] == ["python"] and not skip]
    env = dict(os.environ, TRITON_INTERPRET="1", HSR_CACHE_DIR=str(tmp_path / "cache"),
               CUDA_VISIBLE_DEVICES="", PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-c", RUNNER], input=repr(blocks), cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-8000:]


def test_blocks_marked_no_run_say_why():
    """A skipped block is one the test cannot run here: a GPU, a download, a launcher."""
    for page in PAGES:
        for info, line, body, skip in _blocks(page.read_text()):
            if skip and info.split()[:1] == ["python"]:
                first = body.strip().splitlines()[0] if body.strip() else ""
                assert first.startswith("#"), \
                    f"{_name(page)}:{line}: start a no-run block with a comment saying what it needs"
