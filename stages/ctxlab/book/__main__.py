"""``python -m ctxlab.book``: build the book (``make book``)."""

from ctxlab.book.build import main

raise SystemExit(main())
