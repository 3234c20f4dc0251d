"""The team tree and its assets: which files are assets, what each is called, what its frontmatter
says, and where a team's knowledge and the reference's state live."""
