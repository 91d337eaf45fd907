"""The dashboard: its page (index.html, js/, style.css, vendor/) and the Python that builds it.

read      a history's data.js (and archive.js, changes.json) for the page
derive    the compact index and per-group payloads the page loads
site      `benchtrack site`: read, derive, then write the page and its data files
expected  the range a series' history expects a run in (the dashboard's rule of change)
machines  which machine each runner size ran on, run by run

Only the page's assets are published; site's copy skips the .py files here.
"""
