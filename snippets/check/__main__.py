"""Check an RMSNorm implementation for the mistakes the Pitfalls page describes.

    python -m snippets.check my_model.norms:MyRMSNorm [--device cpu|cuda] [--eps E] [--json]
        [--eps-outside] [--dim 1] [--convention llama|float32|gemma|gemma-bf16] [--add]
        [--init NAME=VALUE] [--factory] [--strict]
    python -m snippets.check path/to/file.py:rms_norm
    python check_rmsnorm.py path/to/file.py:rms_norm    (this file, downloaded from the site)

TARGET names an nn.Module class, built as Cls(n) (with eps=, epsilon=, rms_norm_eps=,
norm_eps=, layer_norm_epsilon= or layer_norm_eps= when its constructor takes one and --eps
is given), or a function called as f(x, weight) or f(x, weight, eps) (eps by one of those
names; the gain by name where it is weight=, or scale= or gamma= second). The checker
works out the implementation's conventions (the gain w or 1 + w, eps and where it sits,
where it rounds in bfloat16), then checks it against a float64 reference of those
conventions.
Exit status: 0 when every required check passes, 1 when one fails (or, with --strict, when
the target refuses an input it is given: a width, a dtype, a layout), 2 for a usage error.
"""

import argparse
import ast
import contextlib
import ctypes
import json
import os
import sys
from dataclasses import asdict

import torch

from snippets.check.checks import check
from snippets.check.measure import CONVENTIONS
from snippets.check.report import SITE
from snippets.check.target import UsageError, load

def keyword(item: str) -> tuple:
    """NAME=VALUE, the value read as a Python literal (16, False, 'x') or a dtype
    (torch.float32), else as text."""
    name, equals, value = item.partition("=")
    if not equals or not name.isidentifier():
        raise UsageError(f"--init {item}: expected NAME=VALUE")
    dtype = getattr(torch, value.removeprefix("torch."), None)
    if value.startswith("torch.") and isinstance(dtype, torch.dtype):
        return name, dtype
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value

def eps_joined(argv: list[str]) -> list[str]:
    """`--eps -1e-6` as `--eps=-1e-6`: argparse reads a negative value with an exponent as
    an option ("expected one argument"), so the check's own message about eps never came.
    """
    joined, rest = [], list(argv)
    while rest:
        item = rest.pop(0)
        if item == "--eps" and rest and rest[0].startswith("-") and is_number(rest[0]):
            item = f"--eps={rest.pop(0)}"
        joined.append(item)
    return joined

def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True

def flush_c_stdio():
    """Flush C's stdio buffers (a printf's text waits there until then)."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(None).fflush(None)

@contextlib.contextmanager
def stdout_to_stderr():
    """While the target is loaded and checked, what it writes to stdout goes to stderr, from
    Python or from compiled code (a C printf, a kernel's print: file descriptor 1): stdout
    holds the report alone, which --json callers parse."""
    sys.stdout.flush()
    flush_c_stdio()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no descriptors to move (Python embedded elsewhere): Python's only
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        flush_c_stdio()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)

def main(argv=None) -> int:
    # Run as the site's package or as the one file the Check page offers.
    prog = "python -m snippets.check" if __package__ else None
    # Raw: argparse would wrap the addresses at their hyphens, and a copied one would break.
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check an RMSNorm implementation for the mistakes described at\n"
        f"  {SITE}pitfalls/",
        epilog="exit status: 0 when every required check passes, 1 when one fails,"
        f" 2 for a usage error\neach check explained: {SITE}check/#the-checks",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", help="module:name or path/to/file.py:name")
    parser.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="where the checks run (cuda: to check a GPU kernel)",
    )
    parser.add_argument(
        "--eps",
        type=float,
        help="the eps to build or call it with (as eps=, epsilon=, rms_norm_eps=,"
        " norm_eps=, layer_norm_epsilon= or layer_norm_eps=)",
    )
    parser.add_argument("--json", action="store_true", help="the verdicts as JSON")
    parser.add_argument(
        "--lang",
        choices=["en", "ko"],
        default="en",
        help="the language of the pages a failure links to (ko: Korean)",
    )
    parser.add_argument(
        "--eps-outside",
        action="store_true",
        help="eps added to the RMS, outside the root, is intended (the RMSNorm authors' code)",
    )
    parser.add_argument(
        "--dim",
        type=int,
        choices=[-1, 1],
        default=-1,
        help="the dimension it normalizes: 1 for (batch, channels, ...) inputs",
    )
    parser.add_argument(
        "--convention",
        choices=list(CONVENTIONS),
        help="the rounding convention intended, then required: "
        + "; ".join(f"{name} {words}" for name, words in CONVENTIONS.items()),
    )
    parser.add_argument(
        "--init",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a keyword argument for a module class's constructor (a Python literal)",
    )
    parser.add_argument(
        "--factory",
        action="store_true",
        help="TARGET is a function f(n) that returns the module (one built from a config)",
    )
    parser.add_argument(
        "--add",
        action="store_true",
        help="a residual add fused with the norm: y, h = f(x, residual, weight)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail a target that refuses an input (a width, a dtype, a layout) with a"
        " clear error, which is otherwise reported, not failed",
    )
    args = parser.parse_args(eps_joined(sys.argv[1:] if argv is None else argv))
    try:
        with stdout_to_stderr():
            report = check(
                load(args.target),
                args.eps,
                args.device,
                args.target,
                eps_outside=args.eps_outside,
                dim=args.dim,
                convention=args.convention,
                add=args.add,
                init=dict(keyword(item) for item in args.init),
                factory=args.factory,
            )
    except UsageError as error:
        if args.json:  # a caller reading JSON gets the error as JSON too
            sys.stdout.write(json.dumps({"usage_error": str(error)}, indent=2) + "\n")
        print(f"usage error: {error}", file=sys.stderr)
        return 2
    passed = report.passed and not (args.strict and report.refusals)
    if args.json:
        said = {"passed": passed, "refusals": report.refusals}
        text = json.dumps({**asdict(report), **said}, indent=2)
    else:
        text = report.table(args.lang)
        if args.strict and report.refusals:
            text += "\nfailed under --strict: it refuses " + "; ".join(
                what.replace(": refuses ", ": ") for what in report.refusals
            )
    # Written to sys.stdout, which a caller can redirect (the Check page's examples.py does).
    sys.stdout.write(text + "\n")
    return 0 if passed else 1

if __name__ == "__main__":
    sys.exit(main())
