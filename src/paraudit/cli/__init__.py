"""The `paraudit` command line: one module per subcommand."""
