"""The reliability suite (issue 8): properties over generated histories, the fault matrix,
crash and resume, the sandbox's escape table, the CLI's error messages.

``CTXLAB_HYPOTHESIS=large`` runs the property tests at their large budget (10,000+ cases);
see ``docs/reliability.md``.
"""
