"""The foundation every stage may use: core counts and thread limits (``cores``), glibc's heap
(``heap``), JSON-ready values (``jsonable``), lazy package namespaces (``lazy``), byte-identical
``.npz`` files (``npz``), parallel batches (``parallel``), child processes reaped
(``processes``), progress lines (``progress``), renamed keywords (``renamed``), how results show
themselves (``repr``), memory sizes (``sizes``) and tables of ranked results (``tables``).
Internal: imported from its modules, never re-exported.
"""
