"""rankmeter.compare: paired significance tests, tables, plots and the HTML report."""
