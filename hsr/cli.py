"""The command line: ``hsr compile``, ``hsr explain``, ``hsr tune`` and ``hsr bench``."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from .errors import HsrError


def _plan(spec_path: Path) -> tuple[object, str]:
    """(the kernel plan, the spec's text) of a spec file."""
    from .check import check
    from .parse import parse
    from .plan import plan

    source = spec_path.read_text()
    return plan(check(parse(source, spec_path.name))), source


def _build(spec_path: Path) -> tuple[str, object]:
    from .emit import emit

    kernel_plan, source = _plan(spec_path)
    return emit(kernel_plan, source, spec_path.name), kernel_plan


def _default_out_dir(spec_path: Path) -> Path:
    """The bundled layout keeps ops/x.hsr beside generated/x.py; elsewhere the spec's folder."""
    sibling = spec_path.resolve().parent.parent / "generated"
    return sibling if spec_path.resolve().parent.name == "ops" and sibling.is_dir() else spec_path.parent


def _templates_ahead(check: bool) -> list[str]:
    """Write templates/compiled/ (hsr.templating) beside the bundled modules, or with check
    say which of its files differ from what the templates give now."""
    from . import templating

    folder = templating.ahead_folder()
    files = templating.compiled_ahead()
    if check:
        return [f"{folder / name} differs from what the templates give now" for name, text in files.items()
                if not (folder / name).exists() or (folder / name).read_text() != text]
    folder.mkdir(exist_ok=True)
    for old in folder.glob("tmpl_*.py"):
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        (folder / name).write_text(text)
    print(f"wrote {folder} ({len(files) - 1} templates compiled ahead)")
    return []


def cmd_compile(args) -> int:
    stale = []
    bundled = False
    for spec in map(Path, args.specs):
        out_dir = Path(args.output) if args.output else _default_out_dir(spec)
        bundled = bundled or out_dir.resolve() == (Path(__file__).resolve().parent.parent / "generated")
        target = out_dir / f"{spec.stem}.py"
        source, _ = _build(spec)
        if args.check:
            current = target.read_text() if target.exists() else None
            if current != source:
                stale.append(f"{target} differs from what {spec} produces now")
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        target.write_text(source)
        print(f"wrote {target}")
    if bundled:  # the bundled modules' checkout: its templates compiled ahead too
        stale += _templates_ahead(args.check)
    if stale:
        print("\n".join(stale), file=sys.stderr)
        print("run `hsr compile` on these specs and commit the result", file=sys.stderr)
        return 1
    if args.check:
        print(f"{len(args.specs)} generated module(s) up to date")
    return 0


def _shapes(text: str | None) -> dict | None:
    """--shapes i=8,j=1000,s=32: {axis: size}."""
    if not text:
        return None
    sizes = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if not name.strip() or not value.strip().isdigit():
            raise SystemExit(f"hsr explain: --shapes takes axis=size pairs separated by commas, got {item!r}")
        sizes[name.strip()] = int(value)
    return sizes


def cmd_explain(args) -> int:
    """The plan and the forward kernel's choice; with --source, the generated module too."""
    spec = bundled_spec(args.spec)
    kernel_plan, source = _plan(spec)
    print(kernel_plan.explain(_shapes(args.shapes), args.dtype))
    if args.source:
        from .emit import emit

        print()
        print(emit(kernel_plan, source, spec.name), end="")
    return 0


def bundled_spec(name: str) -> Path:
    """A spec path as given, or a bundled spec by name (maxsim, chamfer, splade, ...);
    a single word that is neither is a SpecError naming the bundled specs."""
    path = Path(name)
    if path.is_file():
        return path
    from .load import bundled_spec_dir, is_word, unknown_bundled

    bundled = bundled_spec_dir() / f"{name}.hsr"
    if bundled.is_file():
        return bundled
    if is_word(name):
        raise unknown_bundled(name)
    return path


def cmd_tune(args) -> int:
    from . import tune

    if args.import_file:
        print(f"added {tune.import_picks(args.import_file)} picks to this machine's")
    if args.spec:
        sizes = _shapes(args.shapes)
        if not sizes:
            raise SystemExit("hsr tune: give the sizes to tune for, --shapes axis=size,...")
        for kernel, picks in tune.tune(str(bundled_spec(args.spec)), sizes, args.dtype, args.grad).items():
            for key, config in picks.items():
                print(f"{kernel} {key}: {config}")
    if args.export:
        print(f"wrote {tune.export(args.export)} picks to {args.export}")
    if not (args.spec or args.export or args.import_file):
        raise SystemExit("hsr tune: give a SPEC and --shapes, --export FILE or --import FILE")
    return 0


# hsr bench NAME -> the script under bench/ that it runs: one a published table (README), and the
# shipped tuning table. bench/harness.py is their shared module; bench/retrieval_multi_gpu.py runs
# under torchrun (one process a GPU), so it has no NAME; bench/experiments/ holds the scripts that
# answered one question each (run them by path).
BENCHES = {
    "forward": "maxsim_forward.py",
    "train": "maxsim_train.py",
    "chamfer": "chamfer.py",
    "splade": "splade.py",
    "specs": "specs.py",
    "host": "host.py",
    "retrieval": "retrieval.py",
    "int8": "int8_accuracy.py",
    "offsets": "offsets.py",
    "varlen": "varlen.py",
    "tune-grid": "tune_grid.py",
    "residual": "residual.py",
    "plaid-search": "plaid_search.py",
    "plaid-interop": "plaid_interop.py",
    "hidden": "hidden.py",
    "fp32": "fp32_keys.py",
}


def bench_dir() -> Path | None:
    """bench/ of the source checkout this package runs from (an editable install), if any."""
    path = Path(__file__).resolve().parent.parent / "bench"
    return path if (path / BENCHES["forward"]).is_file() else None


def cmd_bench(args) -> int:
    """Run one of the benchmark scripts with the arguments that follow its name: they
    live in the repository (they write results under bench/results/), not in the package."""
    where = bench_dir()
    if where is None:
        print("hsr bench runs the scripts under bench/ of a source checkout (git clone, then "
              "pip install -e .); this hsr is installed without them", file=sys.stderr)
        return 2
    return subprocess.call([sys.executable, str(where / BENCHES[args.name]), *args.script_args])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hsr", description="Compile hard-selection reductions to Triton.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compile", help="generate the Triton module of each spec")
    p.add_argument("specs", nargs="+", metavar="SPEC")
    p.add_argument("-o", "--output", metavar="DIR", help="where to write (default: generated/ beside ops/)")
    p.add_argument("--check", action="store_true", help="fail if the written modules differ from the specs")
    p.set_defaults(func=cmd_compile)
    p = sub.add_parser("explain", help="print the plan of a spec and the forward kernel it runs")
    p.add_argument("spec", metavar="SPEC", help="a .hsr file or a bundled spec's name (maxsim, ...)")
    p.add_argument("--shapes", metavar="AXIS=N,...", help="sizes of the spec's axes: name the forward kernel a call "
                   "of these sizes takes on an sm90 GPU, and what keeps a faster one out (an axis left out takes "
                   "a default that the plan names)")
    p.add_argument("--dtype", default="float16", choices=("float16", "bfloat16", "float32"),
                   help="the rows' dtype for --shapes (default float16)")
    p.add_argument("--source", action="store_true", help="print the generated Triton module too")
    p.add_argument("--plan", "--plan-only", dest="plan_only", action="store_true",
                   help=argparse.SUPPRESS)  # the plan alone: what explain prints without --source
    p.set_defaults(func=cmd_explain)
    p = sub.add_parser("tune", help="tune a spec's forward for given sizes on this GPU; export or import the picks",
                       description="Calls never wait for tuning: a size without a kept or shipped config runs a "
                       "predicted one. This tunes the keys a call of SPEC at --shapes meets (about 10 s a key at most) "
                       "and keeps the picks in the cache directory; --export writes them to a file to ship, --import "
                       "adds such a file to this machine's picks. HSR_AUTOTUNE=1 tunes every new key at its first call.")
    p.add_argument("spec", nargs="?", metavar="SPEC", help="a .hsr file, spec text, or a bundled spec's name (maxsim, ...)")
    p.add_argument("--shapes", metavar="AXIS=N,...", help="sizes of the spec's axes")
    p.add_argument("--dtype", default="float16", choices=("float16", "bfloat16", "float32"))
    p.add_argument("--grad", action="store_true", help="also tune the training forward (it writes indices)")
    p.add_argument("--export", metavar="FILE", help="write this machine's picks to FILE")
    p.add_argument("--import", dest="import_file", metavar="FILE", help="add the picks in FILE to this machine's")
    p.set_defaults(func=cmd_tune)
    p = sub.add_parser("bench", help="run a benchmark on the GPU (bench/*.py; `hsr bench NAME --help` for its options)",
                       description="Benchmarks, run on a GPU: " + ", ".join(f"{k} (bench/{v})" for k, v in BENCHES.items())
                       + ". The arguments after NAME go to the script, e.g. `hsr bench forward --sweep --out DIR`.")
    p.add_argument("name", choices=sorted(BENCHES), metavar="NAME", help=", ".join(sorted(BENCHES)))
    p.add_argument("script_args", nargs=argparse.REMAINDER, metavar="...")
    p.set_defaults(func=cmd_bench)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except HsrError as err:
        print(err, file=sys.stderr)
        return 2
    except OSError as err:
        print(f"hsr: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
