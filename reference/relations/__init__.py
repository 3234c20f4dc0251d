"""Asset relations (#1552, first slice): declared ``related:`` blocks and Markdown links.

Data flows one way: the index stores each asset's outgoing relations when it indexes the file;
recall resolves them after it has chosen its hits; ``review`` and ``contribute`` run the same parser
as checks::

    asset file -> extract.outgoing (declarations.parse + links) -> index entry "relations"
    recall.run.search (hits fixed) -> recall.relations_view.attach -> resolve.Graph per scope
        -> Related: lines (recall.render prints them right after a hit's File: line)
    branch tree (git archive) -> commands.review -> check -> findings
    new learning -> commands.contribute -> check -> warnings

One rule, one module: ``vocabulary`` (who may declare what), ``paths`` (which asset a tree path
names), ``declarations`` (the ``related:`` parser and the malformed-input matrix), ``links`` (the
one Markdown link parser), ``extract`` (what is stored), ``resolve`` (incoming relations and the
order of the ``Related:`` lines), ``visibility`` (the withheld list), ``check`` (review's and
contribute's shared check). Relations never add, drop, reorder or rescore a hit (a property test).
"""
