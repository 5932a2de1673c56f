"""``ctxlab room``: grade a room of workbooks (docs/workshop.md)."""
