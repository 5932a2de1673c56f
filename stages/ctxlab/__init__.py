"""ctxlab: the lab bench of the Context Engineering Workbook (DESIGN §2).

Importing it installs the implementation switch, so ``import s1_loop`` … ``import s5_pipeline``
load the reference solutions (default) or the learner's workbook: see ``ctxlab.use``.
"""

from .workbook.router import install, use

install()

__all__ = ["use"]
