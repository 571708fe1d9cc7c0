"""``python -m toolwire.registry.cli``."""

from . import main

main(prog_name="toolwire")
