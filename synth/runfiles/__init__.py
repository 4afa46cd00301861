"""The run folder's parts, below ``synth.rundir`` (which re-exports them: import from there).

``names``: the files a run holds and which are stored compressed; ``storage``: how a file is spelled on
disk (plain or gzip) and read back line by line; ``tooltable``: each tool list stored once and put back
into its rows; ``reading``: the one JSONL and JSON reader; ``writing``: files replaced atomically and the
streaming writer; ``digest``: line counts and hashes for the manifest and a run's identity; ``lock``: one
writer per folder; ``requests``: ``requests.json``.
"""
