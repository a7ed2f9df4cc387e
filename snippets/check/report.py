"""The checker's verdicts, and its report: a table for a terminal, or JSON (asdict)."""

import textwrap
from dataclasses import dataclass, field

SITE = "https://rmsnorm-reference.github.io/"
# An inference-only kernel (vLLM's, say) computes no gradient: its gradient checks are
# reported as not run, not failed. A norm that trains must pass them.
NO_AUTOGRAD = "not run: no autograd through it (forward only)"
# What a clear refusal of an input raises: reported, not failed, where a check allows one
# (an assert fails: it is a check of the code's own, and python -O removes it).
REFUSALS = (TypeError, ValueError, RuntimeError)
# Said where no gradient reaches the weight, x needing one or not (in checks, and in add
# where a fused add's weight gets none).
NO_WEIGHT_GRADIENT = (
    "no gradient reaches the weight: is it used through .data or .detach(), or does a"
    " custom backward return None for it?"
)

class WrongOutput(Exception):
    """An output no norm returns (a tuple, not a tensor, another shape than x's): a wrong
    answer, not a refusal, so it fails the check that got it whatever the input was."""

def short_name(dtype) -> str:
    """A dtype as the messages name it: bfloat16, not torch.bfloat16."""
    return str(dtype).removeprefix("torch.")

def cut(text: str, limit: int) -> str:
    """A long message kept short: text, or its first limit - 1 characters and an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"

def said(error) -> str:
    """An error in a few words: its type and its message's first line, cut at 60."""
    message = str(error).splitlines()[0] if str(error) else ""
    return type(error).__name__ + (f": {cut(message, 60)}" if message else "")

@dataclass
class Verdict:
    check: str
    passed: bool | None  # None: reported, not required
    detail: str
    see: str  # the page (and anchor) that explains it
    refused: list[str] = field(default_factory=list)  # inputs refused with clear errors

@dataclass
class Report:
    target: str
    conventions: dict
    verdicts: list

    @property
    def passed(self) -> bool:
        return all(v.passed is not False for v in self.verdicts)

    @property
    def refusals(self) -> list[str]:
        """Each input the target refused with a clear error, as "check: what" (a width,
        a dtype, a layout): reported, not failed, so a norm can pass without having been
        checked at a model's width. A CI that needs every input taken asserts there are
        none (--strict)."""
        return [f"{v.check}: {what}" for v in self.verdicts for what in v.refused]

    def table(self, language: str = "en") -> str:
        """The report for a terminal; a failure's link to the page in `language` ("ko":
        the Korean pages, under ko/)."""
        mark = {True: "pass", False: "FAIL", None: "info"}
        site = SITE + ("" if language == "en" else f"{language}/")
        shown = {  # None: not found, as eps is for a form neither inside nor outside
            k: f"{v:.3g}" if isinstance(v, float) else ("not found" if v is None else v)
            for k, v in self.conventions.items()
        }
        lines = [f"{self.target}: " + ", ".join(f"{k} {v}" for k, v in shown.items())]
        for v in self.verdicts:
            # Wrapped at 88 columns under its own first line: readable in a terminal, a
            # CI log and the Check page.
            lines += textwrap.wrap(
                v.detail,
                88,
                initial_indent=f"  {mark[v.passed]:<4}  {v.check:<10}  ",
                subsequent_indent=" " * 20,
                break_long_words=False,
                break_on_hyphens=False,
            )
            if v.passed is False:
                lines.append(f"{'':20}see {site}{v.see}")
        return "\n".join(lines)
