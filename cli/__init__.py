"""The composition root: the `mendel` command wires every floor (library, crawlers, orchestration, serving, evaluations)."""
