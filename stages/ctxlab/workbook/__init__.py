"""Workbook mechanics: the implementation switch, stub generation, grading, hints (DESIGN §2)."""
