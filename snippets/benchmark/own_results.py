"""A benchmark whose results are a file of their own (fp8.py, model.py): where the file goes,
which code it measured, and the command line that writes it. Such results never make run.py's
results stale, and run.py's stale() judges them as it judges its own."""

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from snippets.benchmark.run import (
    MEASURED_CODE,
    RESULTS,
    SMOKE,
    file_name,
    git,
    write_json,
)

@dataclass(frozen=True)
class OwnResults:
    # "fp8": results/fp8/<gpu>.json, and a smoke run build/benchmark/fp8-smoke.json
    name: str
    code: tuple[str, ...]  # the files its figures depend on: stale when one changes

    @property
    def folder(self) -> Path:
        return RESULTS / self.name

    @property
    def smoke(self) -> Path:
        return SMOKE / f"{self.name}-smoke.json"

    @property
    def kinds(self) -> dict[str, str]:
        """A results file's kind, by kind of run."""
        return {"gpu": self.name, "smoke": f"{self.name}-smoke"}

    def main(self, measure: Callable, argv=None, needs: Callable | None = None) -> int:
        """`python -m snippets.benchmark.<name> [--smoke] [--commit C] [--out F]`: results =
        measure(kind, commit), written to F, to the smoke file, or among the results. needs(),
        on a GPU: why this GPU cannot run it, or None."""
        parser = argparse.ArgumentParser(
            prog=f"python -m snippets.benchmark.{self.name}"
        )
        parser.add_argument(
            "--smoke", action="store_true", help="tiny sizes, any device"
        )
        parser.add_argument("--commit", help="git_commit, where the tree has no .git")
        parser.add_argument("--out", type=Path, help="the JSON file to write")
        args = parser.parse_args(argv)
        kind = "smoke" if args.smoke else "gpu"
        out = args.out and args.out.resolve()
        among = out and out.is_relative_to(RESULTS)
        if among and (kind == "smoke" or out.parent != self.folder):
            parser.error(f"a {self.kinds[kind]} run does not write into {out.parent}")
        if kind == "gpu":
            if not torch.cuda.is_available():
                parser.error("a GPU run needs a CUDA GPU; --smoke runs without one")
            if needs and (why := needs()):
                parser.error(why)
            changed = git("diff", "--name-only", "HEAD", "--", *self.code).split()
            if changed or not (args.commit or git("rev-parse", "HEAD")):
                parser.error("results must come from committed code: commit it first")
        else:
            torch.set_num_threads(1)  # tiny tensors: no waiting for a busy second core
        results = measure(kind, args.commit)
        name = f"{file_name(results['device'])}.json"
        write_json(results, out or (self.smoke if args.smoke else self.folder / name))
        return 0

def own_results(name: str, code: list[str]) -> OwnResults:
    """The benchmark `name`'s results, its kinds registered with run.py, whose
    environment() and stale() find a run's code by its kind."""
    own = OwnResults(name, tuple(code))
    MEASURED_CODE.update({kind: list(own.code) for kind in own.kinds.values()})
    return own
