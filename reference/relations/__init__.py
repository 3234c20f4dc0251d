"""Asset relations (#1552, first slice): declared ``related:`` blocks and Markdown links."""
