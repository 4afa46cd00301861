"""Server packs: reviewed, editable data files that hold what the offline author cannot guess.

A pack (``registry/packs/<server>.pack.yaml``) says, per tool, the goals people bring in their own
words, value pools that obey each parameter, result templates consistent with the arguments, how
results feed other tools, and answers that state facts from the result. See ``model`` for the
format, ``template`` for the slot language, ``load`` for finding packs and ``check`` for checking
a pack against its server.
"""
