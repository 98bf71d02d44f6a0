"""Packages for the wheel: ``pyhipattn`` and its subpackages, plus ``kernels/`` of the checkout
mapped to ``pyhipattn/_kernels`` (code objects, manifests and the kernarg headers the planner
reads), so an installed wheel plans and launches with no checkout.  Metadata: pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["pyhipattn", "pyhipattn.*"]) + ["pyhipattn._kernels"],
    package_dir={"pyhipattn._kernels": "kernels"},
    package_data={"pyhipattn": ["py.typed"],
                  "pyhipattn._kernels": ["co/*/*.co", "co/*/*.cubin", "co/*/*.json", "src/*/*.h"]},
)
