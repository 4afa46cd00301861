"""The command line: the app (``synth.cli.app.app``) and one module per command group."""
