"""The registry's writes, one module per noun; ``toolwire.registry._writer.Writer`` composes them.

- ``transaction``: the write transaction every noun shares: its lock, the revision
  bump, the change log, the vocabulary it checks claims against, and the claims that
  go (each with a ``remove`` event) when their row goes;
- ``capabilities``, ``wire_forms``, ``models``, ``rules``, ``claims``, ``engines``: each
  noun's checks, single writes, bulk writes (the seed and ``toolwire import``) and
  removals, in that order of dependence: an engine's removal takes its rules and
  models with it, a claim's subject is a model or a rule.

A new engine column is the engines module (its field list and check), the schema
(``tables.py``, the record in ``records.py``) and a migration.
"""
