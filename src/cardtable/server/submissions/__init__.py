"""Hosted bots on the server: uploads, versions, validation outcomes and stderr logs.

This package owns what the server keeps of a hosted bot (docs/hosted-bots.md): the checked
archive an author uploads (:mod:`~cardtable.server.submissions.archive`: tar.gz or zip with a
``cardtable.json`` manifest, size and path checks), each upload as a numbered version with its
SHA-256 stored in the database (:mod:`~cardtable.server.submissions.store`, tables
``bot_versions``, ``hosted_bots``, ``hosted_logs``), the version its author chose to play, the
outcome of each version's validation game, each game's bounded stderr, and the HTTP API over
them (:mod:`~cardtable.server.submissions.api`), which only the author (by the bot's token) and
the organiser may read. Running the programs is not the server's: hosted-bot workers
(:mod:`cardtable.hosted`) fetch the chosen versions and play them in the sandbox
(:mod:`cardtable.sandbox`) over the ordinary bot protocol, logging in with
:func:`~cardtable.server.submissions.login.hosted_token`.
"""
