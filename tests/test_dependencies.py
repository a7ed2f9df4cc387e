"""constraints.txt pins every package the project needs, at the version installed.

The pages print what these versions compute, so a fresh clone must get the same ones
(scripts/env.sh installs with constraints.txt as pip constraints).
"""

from importlib.metadata import PackageNotFoundError, distribution

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from site_layout import ROOT

PROJECT = "rmsnorm-reference"
EXTRAS = ("docs", "test")


def pinned_versions() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    pins = [line.split("==") for line in lines if line and not line.startswith("#")]
    return {canonicalize_name(name): version for name, version in pins}


def needed_distributions() -> set[str]:
    """The project's requirements with its extras, and theirs, as installed here."""
    needed, to_visit = set(), [(PROJECT, EXTRAS)]
    while to_visit:
        name, extras = to_visit.pop()
        for text in distribution(name).requires or []:
            requirement = Requirement(text)
            environments = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            marker = requirement.marker
            if marker and not any(marker.evaluate(env) for env in environments):
                continue
            key = canonicalize_name(requirement.name)
            try:
                distribution(key)
            except PackageNotFoundError:
                continue  # an optional need of another package, not installed here
            if key not in needed or requirement.extras:
                needed.add(key)
                to_visit.append((key, tuple(requirement.extras)))
    return needed


def test_every_needed_package_is_pinned_at_its_installed_version():
    pins = pinned_versions()
    wrong = {}
    for name in sorted(needed_distributions()):
        installed = Version(distribution(name).version).public  # 2.13.0+cpu -> 2.13.0
        if pins.get(name) != installed:
            wrong[name] = f"installed {installed}, pinned {pins.get(name)}"
    assert not wrong, f"constraints.txt is out of date (see its header): {wrong}"
