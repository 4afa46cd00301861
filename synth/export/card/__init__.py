"""The dataset card: its README.md, sections, plots and the realism rows."""
