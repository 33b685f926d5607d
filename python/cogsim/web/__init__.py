"""cogsim in a browser: ``cogsim play`` (a person plays an env through the runner, stored as agent
``human:NAME``) and ``cogsim view`` (read-only, turn by turn, over run directories).

Both are server-rendered HTML (Starlette, Jinja2 with escaping on; no script but the package's own
key bindings) on a server bound to loopback, behind a random token (``server.py``). Everything a
page shows from a run directory or a model is untrusted: escaped, never a path to open, frames served
only by content key through the store's checked reader (docs/security.md). Needs the ``web`` extra.
"""
