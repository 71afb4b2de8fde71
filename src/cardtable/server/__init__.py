"""The competition server: HTTP API, the native WebSocket protocol, lobbies, tables and storage.

Build the app with :func:`cardtable.server.app.create_app`; ``cardtable serve`` runs it on uvicorn.
"""
