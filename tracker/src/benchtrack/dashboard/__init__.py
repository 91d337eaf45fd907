"""The dashboard: its page (index.html, js/, style.css, vendor/) and the Python that builds it.

site      `benchtrack site`: read a history, derive the index and group payloads, write the site
expected  the range a series' history expects a run in (the dashboard's rule of change)
machines  which machine each runner size ran on, run by run

Only the page's assets are published; the .py files here are skipped by site's copy.
"""
